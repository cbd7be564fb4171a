// Configuration parsing and validation. Every failure names the key it is about.
#include "app/config.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <unistd.h>

namespace certsteward::app {
namespace {

using domain::ErrorCode;
using domain::makeError;

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

domain::Error badValue(const std::string& key, const std::string& why) {
  return makeError(ErrorCode::invalid_argument, "configuration key " + key + ": " + why);
}

std::optional<std::int64_t> parseInt(std::string_view text) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || end != text.data() + text.size()) return std::nullopt;
  return v;
}

bool isValidCidr(std::string_view cidr) {
  const auto slash = cidr.find('/');
  const std::string_view addr = cidr.substr(0, slash);
  const bool v6 = addr.find(':') != std::string_view::npos;
  std::int64_t maxBits = v6 ? 128 : 32;
  if (slash != std::string_view::npos) {
    const auto bits = parseInt(cidr.substr(slash + 1));
    if (!bits || *bits < 0 || *bits > maxBits) return false;
  }
  if (v6) {
    return !addr.empty() && std::all_of(addr.begin(), addr.end(), [](char c) {
      return std::isxdigit(static_cast<unsigned char>(c)) || c == ':';
    });
  }
  int parts = 0;
  std::size_t start = 0;
  while (start <= addr.size()) {
    const std::size_t dot = std::min(addr.find('.', start), addr.size());
    const auto octet = parseInt(addr.substr(start, dot - start));
    if (!octet || *octet < 0 || *octet > 255) return false;
    ++parts;
    start = dot + 1;
  }
  return parts == 4;
}

// Applies one key's value to the Config. The table of keys is this function.
domain::Status apply(Config& c, const std::string& key, const std::string& value) {
  auto duration = [&](domain::Duration& out, domain::Duration min,
                      domain::Duration max) -> domain::Status {
    const auto d = domain::parseDuration(value);
    if (!d) return badValue(key, "expected a duration such as 30s, 15m, 1h or 7d");
    if (*d < min || *d > max) return badValue(key, "out of range");
    out = *d;
    return {};
  };
  auto integer = [&](auto& out, std::int64_t min, std::int64_t max) -> domain::Status {
    const auto v = parseInt(value);
    if (!v || *v < min || *v > max) {
      return badValue(
          key, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max));
    }
    out = static_cast<std::remove_reference_t<decltype(out)>>(*v);
    return {};
  };
  auto boolean = [&](bool& out) -> domain::Status {
    if (value == "true") {
      out = true;
    } else if (value == "false") {
      out = false;
    } else {
      return badValue(key, "expected true or false");
    }
    return {};
  };
  auto secret = [&](std::string& out) -> domain::Status {
    if (value.size() < 32) return badValue(key, "must be at least 32 characters");
    out = value;
    return {};
  };
  using namespace std::chrono;
  const domain::Duration zero{0};

  if (key == "server.listen") {
    const auto colon = value.rfind(':');
    if (colon == std::string::npos || colon == 0) {
      return badValue(key, "expected host:port, e.g. 127.0.0.1:8080");
    }
    std::string host = value.substr(0, colon);
    if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
      host = host.substr(1, host.size() - 2);
    }
    const auto p = parseInt(std::string_view(value).substr(colon + 1));
    if (!p || *p < 0 || *p > 65535) return badValue(key, "port must be 0..65535");
    c.listen_address = host;
    c.listen_port = static_cast<std::uint16_t>(*p);
    return {};
  }
  if (key == "server.secure_cookies") return boolean(c.secure_cookies);
  if (key == "server.trusted_proxies") {
    c.trusted_proxies.clear();
    std::stringstream ss(value);
    std::string item;
    while (std::getline(ss, item, ',')) {
      const std::string cidr(trim(item));
      if (cidr.empty()) continue;
      if (!isValidCidr(cidr)) return badValue(key, "'" + cidr + "' is not an address or CIDR");
      c.trusted_proxies.push_back(cidr);
    }
    return {};
  }
  if (key == "server.max_request_bytes") {
    return integer(c.max_request_bytes, 4096, 64LL * 1024 * 1024);
  }
  if (key == "server.threads") return integer(c.http_threads, 0, 64);
  if (key == "server.request_threads") return integer(c.http_request_threads, 1, 256);
  if (key == "server.request_queue") return integer(c.http_request_queue, 1, 100000);
  if (key == "server.idle_timeout") {
    return duration(c.http_idle_timeout, milliseconds{100}, hours{1});
  }
  if (key == "server.request_timeout") {
    return duration(c.http_request_timeout, milliseconds{100}, minutes{10});
  }
  if (key == "store.url") {
    if (value != "memory:" && !value.starts_with("sqlite://") && !value.starts_with("mongodb://") &&
        !value.starts_with("mongodb+srv://")) {
      return badValue(key, "expected memory:, sqlite://<path> or mongodb://<hosts>/<db>");
    }
    c.store_url = value;
    return {};
  }
  if (key == "jwt.secret") return secret(c.jwt_secret);
  if (key == "jwt.issuer" || key == "jwt.audience") {
    if (value.empty()) return badValue(key, "must not be empty");
    (key == "jwt.issuer" ? c.jwt_issuer : c.jwt_audience) = value;
    return {};
  }
  if (key == "jwt.access_token_ttl") return duration(c.access_token_ttl, seconds{30}, hours{1});
  if (key == "jwt.refresh_token_ttl") {
    return duration(c.refresh_token_ttl, minutes{5}, days{90});
  }
  if (key == "secrets.key") return secret(c.secrets_key);
  if (key == "worker.enabled") return boolean(c.worker_enabled);
  if (key == "worker.max_concurrency") return integer(c.worker_max_concurrency, 0, 256);
  if (key == "worker.max_concurrent_discovery") {
    return integer(c.worker_max_concurrent_discovery, 1, 1000);
  }
  if (key == "worker.poll_interval") {
    return duration(c.worker_poll_interval, milliseconds{100}, minutes{1});
  }
  if (key == "worker.max_attempts") return integer(c.worker_max_attempts, 1, 100);
  if (key == "worker.backoff_base") {
    return duration(c.worker_backoff_base, milliseconds{10}, hours{1});
  }
  if (key == "worker.backoff_cap") return duration(c.worker_backoff_cap, milliseconds{10}, days{1});
  if (key == "worker.lock_ttl") return duration(c.worker_lock_ttl, seconds{1}, hours{1});
  if (key == "worker.shutdown_wait") return duration(c.worker_shutdown_wait, zero, minutes{10});
  if (key == "acme.ca_bundle") {
    c.acme_ca_bundle = value;
    return {};
  }
  if (key == "acme.request_timeout") {
    return duration(c.acme_request_timeout, seconds{1}, minutes{5});
  }
  if (key == "acme.order_timeout") return duration(c.acme_order_timeout, seconds{5}, hours{1});
  if (key == "acme.poll_interval") {
    return duration(c.acme_poll_interval, milliseconds{50}, minutes{1});
  }
  if (key == "dns.timeout") return duration(c.dns_timeout, milliseconds{100}, minutes{1});
  if (key == "dns.propagation_timeout") {
    return duration(c.dns_propagation_timeout, seconds{1}, hours{1});
  }
  if (key == "dns.poll_interval") {
    return duration(c.dns_poll_interval, milliseconds{50}, minutes{1});
  }
  if (key == "dns.exec_timeout") return duration(c.dns_exec_timeout, seconds{1}, minutes{10});
  if (key == "dns.exec_commands") {
    c.dns_exec_commands.clear();
    for (std::size_t at = 0; at < value.size();) {
      const auto comma = value.find(',', at);
      std::string path = value.substr(at, comma - at);
      path.erase(0, path.find_first_not_of(' '));
      path.erase(path.find_last_not_of(' ') + 1);
      if (!path.empty()) {
        if (path.front() != '/') return badValue(key, "'" + path + "' is not an absolute path");
        if (::access(path.c_str(), X_OK) != 0) {
          return badValue(key, "'" + path + "' is not an executable file");
        }
        c.dns_exec_commands.push_back(path);
      }
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    return {};
  }
  if (key == "scheduler.enabled") return boolean(c.scheduler_enabled);
  if (key == "scheduler.interval") return duration(c.scheduler_interval, seconds{1}, days{1});
  if (key == "scheduler.leader_ttl") return duration(c.scheduler_leader_ttl, seconds{1}, hours{1});
  if (key == "scheduler.heartbeat") {
    return duration(c.scheduler_heartbeat, milliseconds{100}, hours{1});
  }
  if (key == "audit.signing_key") return secret(c.audit_signing_key);
  if (key == "auth.bcrypt_cost") return integer(c.bcrypt_cost, 10, 14);
  if (key == "license.public_key_file") {
    c.license_public_key_file = value;
    return {};
  }
  if (key == "log.level") {
    static const std::vector<std::string> levels{"trace", "debug", "info", "warn", "error"};
    if (std::find(levels.begin(), levels.end(), value) == levels.end()) {
      return badValue(key, "expected one of trace, debug, info, warn, error");
    }
    c.log_level = value;
    return {};
  }
  return makeError(ErrorCode::invalid_argument, "unknown configuration key " + key);
}

}  // namespace

std::string environmentName(std::string_view key) {
  std::string name = "CERTSTEWARD_";
  for (const char ch : key) {
    name.push_back(ch == '.' ? '_'
                             : static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
  }
  return name;
}

const std::vector<std::string>& knownKeys() {
  static const std::vector<std::string> keys{"server.listen",
                                             "server.secure_cookies",
                                             "server.trusted_proxies",
                                             "server.max_request_bytes",
                                             "server.threads",
                                             "server.request_threads",
                                             "server.request_queue",
                                             "server.idle_timeout",
                                             "server.request_timeout",
                                             "store.url",
                                             "jwt.secret",
                                             "jwt.issuer",
                                             "jwt.audience",
                                             "jwt.access_token_ttl",
                                             "jwt.refresh_token_ttl",
                                             "secrets.key",
                                             "worker.enabled",
                                             "worker.max_concurrency",
                                             "worker.max_concurrent_discovery",
                                             "worker.poll_interval",
                                             "worker.lock_ttl",
                                             "worker.max_attempts",
                                             "worker.backoff_base",
                                             "worker.backoff_cap",
                                             "worker.shutdown_wait",
                                             "acme.ca_bundle",
                                             "acme.request_timeout",
                                             "acme.order_timeout",
                                             "acme.poll_interval",
                                             "dns.timeout",
                                             "dns.propagation_timeout",
                                             "dns.poll_interval",
                                             "dns.exec_commands",
                                             "dns.exec_timeout",
                                             "scheduler.enabled",
                                             "scheduler.interval",
                                             "scheduler.leader_ttl",
                                             "scheduler.heartbeat",
                                             "audit.signing_key",
                                             "log.level"};
  return keys;
}

domain::Result<std::map<std::string, std::string>> parseConfigText(std::string_view text) {
  std::map<std::string, std::string> values;
  int lineNumber = 0;
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = trim(text.substr(start, end - start));
    start = end + 1;
    ++lineNumber;
    if (line.empty() || line.front() == '#') continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      return makeError(
          ErrorCode::invalid_argument,
          "configuration line " + std::to_string(lineNumber) + ": expected key = value");
    }
    const std::string key(trim(line.substr(0, eq)));
    std::string_view value = trim(line.substr(eq + 1));
    if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
      value = value.substr(1, value.size() - 2);
    }
    if (key.empty()) {
      return makeError(ErrorCode::invalid_argument,
                       "configuration line " + std::to_string(lineNumber) + ": empty key");
    }
    values[key] = std::string(value);
  }
  return values;
}

domain::Result<Config> loadConfig(
    const std::map<std::string, std::string>& fileValues,
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  Config config;
  std::map<std::string, std::string> merged = fileValues;
  for (const auto& key : knownKeys()) {
    if (auto v = getenv(environmentName(key))) merged[key] = *v;
  }
  for (const auto& [key, value] : merged) {
    if (auto s = apply(config, key, value); !s) return s.error();
  }
  if (config.jwt_secret.empty()) {
    return makeError(ErrorCode::invalid_argument,
                     "configuration key jwt.secret is required (at least 32 characters; set it "
                     "in the file or CERTSTEWARD_JWT_SECRET)");
  }
  if (config.secrets_key.empty()) {
    return makeError(ErrorCode::invalid_argument,
                     "configuration key secrets.key is required (at least 32 characters; it "
                     "encrypts secrets at rest — keep it safe, set it in the file or "
                     "CERTSTEWARD_SECRETS_KEY)");
  }
  if (config.audit_signing_key.empty()) config.audit_signing_key = config.jwt_secret;
  if (!config.license_public_key_file.empty()) {
    std::ifstream key(config.license_public_key_file);
    if (!key) {
      return makeError(ErrorCode::invalid_argument,
                       "configuration key license.public_key_file: cannot read " +
                           config.license_public_key_file);
    }
  }
  if (config.scheduler_heartbeat >= config.scheduler_leader_ttl) {
    return makeError(ErrorCode::invalid_argument,
                     "configuration key scheduler.heartbeat must be shorter than "
                     "scheduler.leader_ttl");
  }
  return config;
}

domain::Result<Config> loadConfigFromFileAndEnvironment(const std::optional<std::string>& path) {
  std::map<std::string, std::string> fileValues;
  if (path) {
    std::ifstream in(*path);
    if (!in) {
      return makeError(ErrorCode::invalid_argument, "cannot read configuration file " + *path);
    }
    std::stringstream buffer;
    buffer << in.rdbuf();
    auto parsed = parseConfigText(buffer.str());
    if (!parsed) return parsed.error();
    fileValues = std::move(*parsed);
  }
  return loadConfig(fileValues, [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  });
}

}  // namespace certsteward::app
