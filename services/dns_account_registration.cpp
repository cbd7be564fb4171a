// Registering an acme-dns account as a DNS credential and its zone.
#include <certsteward/services/dns_account_registration.hpp>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/dns_settings.hpp>
#include <certsteward/domain/name.hpp>

namespace certsteward::services {

domain::Result<RegisteredDnsAccount> DnsAccountRegistration::registerAccount(
    const Principal& who, const RequestContext& ctx, const domain::Id& projectId,
    domain::DnsCredential draft) {
  if (auto s = access_.check(who, Action::manage_project_config, projectId); !s) return s.error();
  if (!domain::isValidName(draft.name)) {
    return makeError(domain::ErrorCode::invalid_argument, std::string("name ") + domain::kNameRule);
  }
  if (draft.provider != "acmedns") {
    domain::Error e = makeError(domain::ErrorCode::invalid_argument,
                                "provider must be acmedns: only acme-dns accounts are registered");
    e.reason = domain::kInvalidField;
    e.references = {"provider"};
    return e;
  }
  // Everything the saved credential will be checked for, checked before anything is sent: the
  // account's own fields stand in as placeholders, and are the registration's to fill.
  for (const char* filled : {"username", "subdomain", "fulldomain"}) {
    if (draft.settings.count(filled) != 0U) {
      return domain::fieldError("settings." + std::string(filled) +
                                " is given by the acme-dns server at registration");
    }
  }
  domain::DnsCredential probe = draft;
  probe.settings["username"] = "00000000-0000-0000-0000-000000000000";
  probe.settings["subdomain"] = "00000000-0000-0000-0000-000000000000";
  probe.settings["fulldomain"] = "00000000-0000-0000-0000-000000000000.acme-dns.invalid";
  if (auto s = domain::checkDnsCredentialSettings(probe, true, {}); !s) return s.error();
  auto account = providers_.registerAccount(draft);
  if (!account) {
    auto e = account.error();
    // The caller's rights are fine: the other server said no (409, not 403).
    if (e.code == domain::ErrorCode::permission_denied) {
      e.code = domain::ErrorCode::failed_precondition;
    }
    if (e.code == domain::ErrorCode::invalid_argument && e.references.empty()) {
      e.reason = domain::kInvalidField;
      e.references = {"settings.api_url"};
      e.message = "settings.api_url " + e.message;
    }
    return e;
  }
  if (!domain::isValidDnsName(account->served_name)) {
    return makeError(domain::ErrorCode::unavailable,
                     "the DNS server registered an account for a name no zone can hold (" +
                         account->served_name.substr(0, 80) + "): nothing was saved");
  }
  draft.settings = std::move(account->settings);
  draft.active = true;
  auto credential = config_.dnsCredentials.create(who, ctx, projectId, draft, account->secret);
  if (!credential) return credential.error();
  domain::Zone zone;
  zone.domain = account->served_name;
  zone.dns_credential_id = credential->id;
  auto saved = config_.zones.create(who, ctx, projectId, zone, std::nullopt);
  if (!saved) {
    auto e = saved.error();
    if (auto removed = config_.dnsCredentials.remove(who, ctx, projectId, credential->id);
        !removed) {
      e.message += " (and the DNS credential " + credential->id +
                   " made for the account could not be removed: delete it)";
    }
    return e;
  }
  return RegisteredDnsAccount{std::move(*credential), std::move(*saved)};
}

}  // namespace certsteward::services
