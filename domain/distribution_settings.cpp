// The rules of distribution target settings.
#include <certsteward/domain/distribution_settings.hpp>

#include <algorithm>
#include <charconv>
#include <set>

#include <certsteward/domain/catalog.hpp>

namespace certsteward::domain {
namespace {

const KindSpec* moduleSpec(std::string_view module) {
  return findKind(distributionModuleSpecs(), module);
}

Status bad(const std::string& target, std::string_view setting, const std::string& why) {
  return Error{ErrorCode::invalid_argument,
               "target " + target.substr(0, 64) + ": setting " + std::string(setting) + " " + why,
               kInvalidField,
               {std::string(setting)}};
}

}  // namespace

const std::vector<std::string_view>& distributionModuleNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> n;
    for (const auto& m : distributionModuleSpecs())
      n.push_back(m.name);
    return n;
  }();
  return names;
}

bool isModuleSetting(std::string_view module, std::string_view key) {
  const auto* spec = moduleSpec(module);
  return spec != nullptr && findField(*spec, key) != nullptr;
}

Settings effectiveSettings(const ModuleConfig& config, const DistributionTarget& target) {
  Settings s = config.settings;
  for (const auto& [k, v] : target.settings)
    s[k] = v;
  return s;
}

bool moduleNeedsCredential(std::string_view module) {
  const auto* spec = moduleSpec(module);
  const auto* field =
      spec == nullptr ? nullptr : findField(*spec, "credential_id", FieldPlace::body);
  return field != nullptr && field->required;
}

std::vector<std::string_view> credentialKindsFor(std::string_view module) {
  const auto* spec = moduleSpec(module);
  const auto* field =
      spec == nullptr ? nullptr : findField(*spec, "credential_id", FieldPlace::body);
  return field == nullptr ? std::vector<std::string_view>{} : field->credential_kinds;
}

std::string settingOf(const Settings& settings, std::string_view key, std::string fallback) {
  const auto it = settings.find(std::string(key));
  return it == settings.end() || it->second.empty() ? fallback : it->second;
}

TargetFiles targetFiles(const Settings& s) {
  TargetFiles f;
  f.cert_path = settingOf(s, "cert_path");
  f.key_path = settingOf(s, "key_path");
  f.chain_path = settingOf(s, "chain_path");
  f.fullchain_path = settingOf(s, "fullchain_path");
  if (const auto mode = settingOf(s, "file_mode"); !mode.empty()) {
    int m = 0;
    const auto [end, ec] = std::from_chars(mode.data(), mode.data() + mode.size(), m, 8);
    if (ec == std::errc{} && end == mode.data() + mode.size()) f.cert_mode = m;
  }
  return f;
}

Status checkTargetSettings(std::string_view module, const std::string& target, const Settings& s,
                           const DistributionPolicy& policy) {
  const auto* spec = moduleSpec(module);
  if (spec == nullptr) {
    return makeError(ErrorCode::invalid_argument,
                     "module must be one of: " + kindNames(distributionModuleSpecs()));
  }
  // What the description says: known settings, each value of its type, the required ones given.
  if (const auto problem = settingsProblem(*spec, s, true)) {
    return bad(target, problem->key, explain(*problem, "module " + std::string(module), true));
  }
  // The rules between settings, and those that need the server's policy.
  const auto has = [&](const char* k) { return s.count(k) > 0 && !s.at(k).empty(); };
  if (module == "ssh" || module == "file") {
    if (!has("cert_path") && !has("fullchain_path")) {
      return bad(target, "cert_path", "or fullchain_path is required");
    }
    std::set<std::string> seen;
    for (const char* k : {"cert_path", "key_path", "chain_path", "fullchain_path", "webroot"}) {
      if (!has(k)) continue;
      if (std::string_view(k) != "webroot" && !seen.insert(s.at(k)).second) {
        return bad(target, k, "names a file another path names");
      }
      const bool webroot = std::string_view(k) == "webroot";
      if (module == "file" &&
          std::none_of(policy.file_directories.begin(), policy.file_directories.end(),
                       [&](const std::string& dir) {
                         // A webroot may be an allowed directory itself (files go below it).
                         return s.at(k).starts_with(dir == "/" ? dir : dir + "/") ||
                                (webroot && s.at(k) == dir);
                       })) {
        return bad(target, k,
                   "must be below one of the server's distribution.file_directories" +
                       std::string(policy.file_directories.empty() ? " (none are allowed)" : ""));
      }
    }
    if (has("webroot") && has("key_path")) {
      const std::string& root = s.at("webroot");
      if (s.at("key_path").starts_with(root == "/" ? root : root + "/")) {
        return bad(target, "key_path",
                   "must not be below the webroot, which the web server serves");
      }
    }
    if (has("file_mode")) {
      const auto& m = s.at("file_mode");
      int mode = 0;
      const auto [end, ec] = std::from_chars(m.data(), m.data() + m.size(), mode, 8);
      if (ec != std::errc{} || end != m.data() + m.size() || mode > 0777 || (mode & 0600) != 0600) {
        return bad(target, "file_mode",
                   "must be an octal mode such as 0644 that the owner can read and write");
      }
    }
    if (module == "file" && has("reload_command") &&
        std::find(policy.exec_commands.begin(), policy.exec_commands.end(),
                  s.at("reload_command")) == policy.exec_commands.end()) {
      return bad(target, "reload_command",
                 "must be one of the server's distribution.exec_commands" +
                     std::string(policy.exec_commands.empty() ? " (none are allowed)" : ""));
    }
    return {};
  }
  if (module == "haproxy") {
    const auto& a = s.at("runtime_address");
    const bool unixSocket = a.starts_with("unix:") && isCleanAbsolutePath(a.substr(5));
    const auto hostPort = splitHostPort(a);
    if (!unixSocket && !hostPort) {
      return bad(target, "runtime_address", "must be host:port or unix:/absolute/path");
    }
    // The runtime API has no TLS and the key goes through it: this machine only.
    if (!unixSocket && !isLoopback(hostPort->first)) {
      return bad(target, "runtime_address",
                 "must be a loopback address or a unix socket: the runtime API carries the "
                 "private key unencrypted");
    }
    const auto& n = s.at("cert_name");
    if (std::any_of(n.begin(), n.end(), [](char c) {
          return c == ' ' || c == ';' || c == '\t' || c == '\\' || c == '<' || c == '>';
        })) {
      return bad(target, "cert_name", "must name a certificate without spaces or ';'");
    }
  }
  return {};
}

}  // namespace certsteward::domain
