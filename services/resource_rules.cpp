// Cross-resource rules.
#include <certsteward/services/resource_rules.hpp>

#include <algorithm>
#include <set>

#include <certsteward/domain/catalog.hpp>
#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/distribution.hpp>
#include <certsteward/domain/dns_settings.hpp>
#include <certsteward/domain/notification_rules.hpp>
#include <certsteward/domain/notification_settings.hpp>

namespace certsteward::services {

namespace {

domain::Error unknownValue(const char* field, const std::string& value, const char* allowed) {
  return makeError(
      domain::ErrorCode::invalid_argument,
      std::string("unknown ") + field + ": '" + value.substr(0, 40) + "' (" + allowed + ")",
      domain::kMalformed);
}

// A broken rule of `field`, in `message` (422 naming the field).
domain::Error invalidField(const std::string& field, std::string message) {
  return {domain::ErrorCode::invalid_argument, std::move(message), domain::kInvalidField, {field}};
}

}  // namespace

domain::Status checkAcmeAccount(const domain::AcmeAccount& account) {
  if (!account.directory_url.starts_with("https://")) {
    return makeError(domain::ErrorCode::invalid_argument, "directory_url must be an https:// URL",
                     domain::kMalformed);
  }
  return {};
}

domain::Status checkDnsCredential(const domain::DnsCredential& credential,
                                  const std::vector<std::string>& execCommands) {
  return domain::checkDnsCredentialSettings(credential, !credential.secret_sealed.empty(),
                                            execCommands);
}

domain::Status checkCredential(const domain::Credential& credential) {
  const auto& kinds = domain::credentialKindSpecs();
  const auto* kind = domain::findKind(kinds, credential.kind);
  if (kind == nullptr) {
    return unknownValue("kind", credential.kind, domain::kindNames(kinds).c_str());
  }
  if (credential.username.size() > 256) {
    return domain::fieldError("username must be at most 256 characters");
  }
  if (credential.secret_sealed.empty()) {
    return domain::fieldError(
        "secret (the " +
        std::string(domain::findField(*kind, "secret", domain::FieldPlace::body)->label) +
        ") is required");
  }
  return {};
}

domain::Status checkNotificationChannel(const domain::NotificationChannel& channel) {
  return checkChannel(channel, !channel.secret_sealed.empty());
}

domain::Status checkZone(const domain::Zone& z, const ports::DnsCredentialRepository& credentials) {
  if (!domain::isValidDnsName(z.domain) || z.domain.starts_with("*.")) {
    return makeError(domain::ErrorCode::invalid_argument,
                     "domain must be a lower-case DNS name such as example.com");
  }
  auto credential = credentials.get(z.project_id, z.dns_credential_id);
  if (!credential && credential.error().code != domain::ErrorCode::not_found)
    return credential.error();
  if (!credential || !credential->active) {
    return makeError(domain::ErrorCode::invalid_argument,
                     "dns_credential_id must name an active DNS credential of this project");
  }
  return {};
}

domain::Status checkNotificationRule(const domain::NotificationRule& r,
                                     const ports::NotificationChannelRepository& channels) {
  if (auto s = checkRuleFields(r); !s) return s;
  for (const auto& id : r.channel_ids) {
    auto channel = channels.get(r.project_id, id);
    if (!channel && channel.error().code != domain::ErrorCode::not_found) return channel.error();
    if (!channel) {
      return makeError(domain::ErrorCode::invalid_argument,
                       "channel_ids must name notification channels of this project");
    }
  }
  return {};
}

namespace {

// Every entity of a project, page by page (bounded).
template <class T, class Repo>
domain::Result<std::vector<T>> everything(const Repo& repo, const domain::Id& projectId) {
  std::vector<T> all;
  for (std::int64_t page = 1; page <= 10000; ++page) {
    auto items = repo.list(projectId, *domain::makePageRequest(page, 100));
    if (!items) return items.error();
    all.insert(all.end(), items->items.begin(), items->items.end());
    if (page * 100 >= items->total) break;
  }
  return all;
}

}  // namespace

domain::Status checkModuleConfig(const domain::ModuleConfig& config,
                                 const ports::CredentialRepository& credentials,
                                 const domain::DistributionPolicy& policy) {
  if (domain::findKind(domain::distributionModuleSpecs(), config.module) == nullptr) {
    return unknownValue("module", config.module,
                        domain::kindNames(domain::distributionModuleSpecs()).c_str());
  }
  if (config.targets.size() > 500) {
    return makeError(domain::ErrorCode::invalid_argument,
                     "a module configuration has at most 500 targets");
  }
  // The shared settings on their own (every target's effective settings are checked below).
  const auto& spec = *domain::findKind(domain::distributionModuleSpecs(), config.module);
  if (const auto problem = domain::settingsProblem(spec, config.settings, false)) {
    const std::string field = "settings." + problem->key;
    return invalidField(field, field + " " + explain(*problem, "module " + config.module));
  }
  std::set<std::string> names_seen;
  const auto kinds = domain::credentialKindsFor(config.module);
  for (std::size_t i = 0; i < config.targets.size(); ++i) {
    const auto& t = config.targets[i];
    const std::string at = "targets[" + std::to_string(i) + "].";
    if (t.name.empty()) return invalidField(at + "name", "every target needs a name");
    if (!names_seen.insert(t.name).second) {
      return invalidField(at + "name", "target names must be unique: " + t.name.substr(0, 64));
    }
    if (auto s = checkTargetSettings(config.module, t.name, effectiveSettings(config, t), policy);
        !s) {
      // Name the value where it was given: the target's own, else the shared default.
      const auto& key = s.error().references.empty() ? std::string() : s.error().references[0];
      const auto* field = domain::findField(spec, key);
      const bool shared = !t.settings.contains(key) &&
                          (config.settings.contains(key) ||
                           (field != nullptr && field->scope == domain::FieldScope::shared));
      return invalidField((shared ? std::string("settings.") : at + "settings.") + key,
                          s.error().message);
    }
    if (t.credential_id.empty()) {
      if (domain::moduleNeedsCredential(config.module)) {
        return invalidField(at + "credential_id", "target " + t.name.substr(0, 64) + ": module " +
                                                      config.module +
                                                      " needs a credential (credential_id)");
      }
      continue;
    }
    auto credential = credentials.get(config.project_id, t.credential_id);
    if (!credential && credential.error().code != domain::ErrorCode::not_found)
      return credential.error();
    if (!credential) {
      return invalidField(at + "credential_id",
                          "target " + t.name.substr(0, 64) +
                              ": credential_id must name a credential of this project");
    }
    if (!kinds.empty() && std::find(kinds.begin(), kinds.end(), credential->kind) == kinds.end()) {
      std::string allowed;
      for (const auto k : kinds)
        allowed += (allowed.empty() ? "" : ", ") + std::string(k);
      return invalidField(at + "credential_id", "target " + t.name.substr(0, 64) + ": module " +
                                                    config.module + " needs a credential of kind " +
                                                    allowed);
    }
  }
  return {};
}

domain::Result<std::vector<std::string>> modulesUsing(
    const domain::Credential& credential, const ports::ModuleConfigRepository& modules) {
  auto all = everything<domain::ModuleConfig>(modules, credential.project_id);
  if (!all) return all.error();
  std::vector<std::string> refs;
  for (const auto& m : *all) {
    for (const auto& t : m.targets) {
      if (t.credential_id == credential.id) {
        refs.push_back("module " + m.id);
        break;
      }
    }
  }
  return refs;
}

domain::Result<std::vector<std::string>> distributionsUsing(
    const domain::ModuleConfig& config, const ports::DistributionRepository& distributions) {
  auto all = everything<domain::Distribution>(distributions, config.project_id);
  if (!all) return all.error();
  std::vector<std::string> refs;
  for (const auto& d : *all) {
    if (d.module_config_id == config.id) refs.push_back("distribution " + d.id);
  }
  return refs;
}

domain::Result<std::vector<std::string>> certificatesAnsweringThrough(
    const domain::ModuleConfig& config, const ports::CertificateRepository& certificates) {
  std::vector<std::string> refs;
  if (config.module != "file" && config.module != "ssh") return refs;
  for (std::int64_t page = 1; page <= 10000; ++page) {
    auto items = certificates.list(config.project_id, {}, *domain::makePageRequest(page, 100));
    if (!items) return items.error();
    for (const auto& c : items->items) {
      if (c.http01_module_config_id == config.id) refs.push_back("certificate " + c.id);
    }
    if (page * 100 >= items->total) break;
  }
  return refs;
}

domain::Result<std::vector<std::string>> zonesUsing(const domain::DnsCredential& d,
                                                    const ports::ZoneRepository& zones) {
  auto all = everything<domain::Zone>(zones, d.project_id);
  if (!all) return all.error();
  std::vector<std::string> refs;
  for (const auto& z : *all) {
    if (z.dns_credential_id == d.id) refs.push_back("zone " + z.id);
  }
  return refs;
}

}  // namespace certsteward::services
