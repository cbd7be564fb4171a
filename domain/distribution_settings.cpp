// The rules of distribution target settings.
#include <certsteward/domain/distribution_settings.hpp>

#include <algorithm>
#include <charconv>
#include <set>

#include <certsteward/domain/encoding.hpp>

namespace certsteward::domain {
namespace {

struct ModuleSettings {
  std::string_view module;
  std::vector<std::string_view> known;
};

const std::vector<ModuleSettings>& table() {
  static const std::vector<ModuleSettings> t{
      {"ssh",
       {"host", "port", "cert_path", "key_path", "chain_path", "fullchain_path", "file_mode",
        "reload_command", "host_key_sha256", "verify_address", "verify_server_name"}},
      {"file",
       {"cert_path", "key_path", "chain_path", "fullchain_path", "file_mode", "reload_command",
        "verify_address", "verify_server_name"}},
      {"haproxy", {"runtime_address", "cert_name", "verify_address", "verify_server_name"}},
      {"webhook", {"url", "include_private_key", "ca_pem"}},
  };
  return t;
}

Status bad(const std::string& target, std::string_view setting, const std::string& why) {
  return makeError(ErrorCode::invalid_argument, "target " + target.substr(0, 64) + ": setting " +
                                                    std::string(setting) + " " + why);
}

bool hasControl(std::string_view v, bool newlinesAllowed) {
  return std::any_of(v.begin(), v.end(), [&](char c) {
    const auto u = static_cast<unsigned char>(c);
    if (newlinesAllowed && (c == '\n' || c == '\r')) return false;
    return u < 0x20 || u == 0x7f;
  });
}

// Absolute, normalised: no "." or ".." segment, no empty segment, no trailing slash.
bool isCleanAbsolutePath(std::string_view p) {
  if (p.size() < 2 || p.size() > 1024 || p.front() != '/' || p.back() == '/') return false;
  std::size_t from = 1;
  while (from <= p.size()) {
    const auto slash = p.find('/', from);
    const auto seg =
        p.substr(from, slash == std::string_view::npos ? p.size() - from : slash - from);
    if (seg.empty() || seg == "." || seg == "..") return false;
    if (slash == std::string_view::npos) break;
    from = slash + 1;
  }
  return true;
}

bool isFingerprint(std::string_view f) {
  constexpr std::string_view prefix = "SHA256:";
  if (!f.starts_with(prefix)) return false;
  auto b64 = f.substr(prefix.size());
  while (!b64.empty() && b64.back() == '=')
    b64.remove_suffix(1);
  return b64.size() == 43 && std::all_of(b64.begin(), b64.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '+' || c == '/';
         });
}

}  // namespace

const std::vector<std::string_view>& distributionModuleNames() {
  static const std::vector<std::string_view> names = [] {
    std::vector<std::string_view> n;
    for (const auto& m : table())
      n.push_back(m.module);
    return n;
  }();
  return names;
}

bool isModuleSetting(std::string_view module, std::string_view key) {
  for (const auto& m : table()) {
    if (m.module == module) return std::find(m.known.begin(), m.known.end(), key) != m.known.end();
  }
  return false;
}

Settings effectiveSettings(const ModuleConfig& config, const DistributionTarget& target) {
  Settings s = config.settings;
  for (const auto& [k, v] : target.settings)
    s[k] = v;
  return s;
}

bool moduleNeedsCredential(std::string_view module) {
  return module == "ssh" || module == "webhook";
}

std::vector<std::string_view> credentialKindsFor(std::string_view module) {
  if (module == "ssh") return {"ssh_key", "password"};
  if (module == "webhook") return {"token", "password"};
  return {};
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
  const auto entry = std::find_if(table().begin(), table().end(),
                                  [&](const ModuleSettings& m) { return m.module == module; });
  if (entry == table().end()) {
    return makeError(ErrorCode::invalid_argument,
                     "module must be one of: ssh, file, haproxy, webhook");
  }
  for (const auto& [key, value] : s) {
    if (std::find(entry->known.begin(), entry->known.end(), key) == entry->known.end()) {
      return bad(target, key.substr(0, 64), "is not a setting of module " + std::string(module));
    }
    if (value.size() > (key == "ca_pem" ? 65536u : 4096u)) return bad(target, key, "is too long");
    if (hasControl(value, key == "ca_pem")) {
      return bad(target, key, "must not contain control characters");
    }
  }
  const auto has = [&](const char* k) { return s.count(k) > 0 && !s.at(k).empty(); };
  const auto require = [&](const char* k) -> Status {
    if (!has(k)) return bad(target, k, "is required for module " + std::string(module));
    return {};
  };
  if (has("verify_address") && !splitHostPort(s.at("verify_address"))) {
    return bad(target, "verify_address", "must be host:port");
  }
  if (has("verify_server_name") && !isHostName(s.at("verify_server_name"))) {
    return bad(target, "verify_server_name", "must be a host name");
  }

  if (module == "ssh" || module == "file") {
    if (module == "ssh") {
      if (auto r = require("host"); !r) return r;
      if (!isHostName(s.at("host"))) return bad(target, "host", "must be a host name or address");
      if (has("port") && !parsePort(s.at("port"))) return bad(target, "port", "must be 1..65535");
      if (auto r = require("host_key_sha256"); !r) return r;
      if (!isFingerprint(s.at("host_key_sha256"))) {
        return bad(target, "host_key_sha256",
                   "must be the fingerprint as ssh-keygen -lf prints it: SHA256:<43 characters>");
      }
    }
    if (auto r = require("key_path"); !r) return r;
    if (!has("cert_path") && !has("fullchain_path")) {
      return bad(target, "cert_path", "or fullchain_path is required");
    }
    std::set<std::string> seen;
    for (const char* k : {"cert_path", "key_path", "chain_path", "fullchain_path"}) {
      if (!has(k)) continue;
      if (!isCleanAbsolutePath(s.at(k))) {
        return bad(target, k, "must be an absolute path without '.' or '..' segments");
      }
      if (!seen.insert(s.at(k)).second) return bad(target, k, "names a file another path names");
      if (module == "file" &&
          std::none_of(policy.file_directories.begin(), policy.file_directories.end(),
                       [&](const std::string& dir) {
                         return s.at(k).starts_with(dir == "/" ? dir : dir + "/");
                       })) {
        return bad(target, k,
                   "must be below one of the server's distribution.file_directories" +
                       std::string(policy.file_directories.empty() ? " (none are allowed)" : ""));
      }
    }
    if (has("file_mode")) {
      const auto& m = s.at("file_mode");
      int mode = 0;
      const auto [end, ec] = std::from_chars(m.data(), m.data() + m.size(), mode, 8);
      if (ec != std::errc{} || end != m.data() + m.size() || m.size() > 4 || mode > 0777 ||
          (mode & 0600) != 0600) {
        return bad(target, "file_mode",
                   "must be an octal mode such as 0644 that the owner can read and write");
      }
    }
    if (has("reload_command")) {
      const auto& c = s.at("reload_command");
      if (module == "file" && std::find(policy.exec_commands.begin(), policy.exec_commands.end(),
                                        c) == policy.exec_commands.end()) {
        return bad(target, "reload_command",
                   "must be one of the server's distribution.exec_commands" +
                       std::string(policy.exec_commands.empty() ? " (none are allowed)" : ""));
      }
      if (c.size() > 1024) return bad(target, "reload_command", "is too long");
    }
    return {};
  }
  if (module == "haproxy") {
    if (auto r = require("runtime_address"); !r) return r;
    if (auto r = require("cert_name"); !r) return r;
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
    if (n.size() > 255 || std::any_of(n.begin(), n.end(), [](char c) {
          return c == ' ' || c == ';' || c == '\t' || c == '\\' || c == '<' || c == '>';
        })) {
      return bad(target, "cert_name", "must name a certificate without spaces or ';'");
    }
    return {};
  }
  // webhook
  if (auto r = require("url"); !r) return r;
  if (const auto why = urlProblem(s.at("url")); !why.empty()) return bad(target, "url", why);
  if (has("include_private_key")) {
    const auto& v = s.at("include_private_key");
    if (v != "true" && v != "false")
      return bad(target, "include_private_key", "must be true or false");
  }
  if (has("ca_pem")) {
    if (const auto problem = pemCertificatesProblem(s.at("ca_pem")); !problem.empty()) {
      return bad(target, "ca_pem", problem);
    }
  }
  return {};
}

}  // namespace certsteward::domain
