// Configuration parsing and validation. Every failure names the key it is about.
#include <certsteward/app/config.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <certsteward/domain/id.hpp>

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

// What a key's setter gets: the Config, the key and its value, and the common parsers.
struct Setter {
  Config& c;
  const std::string& key;
  const std::string& value;

  domain::Status duration(domain::Duration& out, domain::Duration min, domain::Duration max) {
    const auto d = domain::parseDuration(value);
    if (!d) return badValue(key, "expected a duration such as 30s, 15m, 1h or 7d");
    if (*d < min || *d > max) return badValue(key, "out of range");
    out = *d;
    return {};
  }
  template <class T>
  domain::Status integer(T& out, std::int64_t min, std::int64_t max) {
    const auto v = parseInt(value);
    if (!v || *v < min || *v > max) {
      return badValue(
          key, "expected an integer from " + std::to_string(min) + " to " + std::to_string(max));
    }
    out = static_cast<T>(*v);
    return {};
  }
  domain::Status boolean(bool& out) {
    if (value == "true") {
      out = true;
    } else if (value == "false") {
      out = false;
    } else {
      return badValue(key, "expected true or false");
    }
    return {};
  }
  domain::Status secret(std::string& out) {
    if (value.size() < 32) return badValue(key, "must be at least 32 characters");
    out = value;
    return {};
  }
  domain::Status text(std::string& out) {
    out = value;
    return {};
  }
  // "host:port" ("[v6]:port"); the port may be 0 (any free one).
  domain::Status listener(std::string& address, std::uint16_t& port) {
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
    address = host;
    port = static_cast<std::uint16_t>(*p);
    return {};
  }
  // A file the server can read now (empty: unset).
  domain::Status readableFile(std::string& out) {
    if (!value.empty() && ::access(value.c_str(), R_OK) != 0) {
      return badValue(key, "cannot read " + value);
    }
    out = value;
    return {};
  }
  // A comma-separated list of absolute paths to executables.
  // "10.0.0.0/8, 127.0.0.1, fd00::/8": each item an address or CIDR (domain::parseCidr), added
  // to `out`; empty items are skipped.
  domain::Status cidrs(std::vector<domain::Cidr>& out) {
    std::stringstream ss(value);
    std::string item;
    while (std::getline(ss, item, ',')) {
      const std::string text(trim(item));
      if (text.empty()) continue;
      const auto range = domain::parseCidr(text);
      if (!range) return badValue(key, "'" + text + "' is not an address or CIDR");
      out.push_back(*range);
    }
    return {};
  }
  // Comma-separated numeric resolver addresses, each with an optional port: 192.0.2.1,
  // 192.0.2.1:5353, 2001:db8::1, [2001:db8::1]:5353.
  domain::Status resolvers(std::vector<std::string>& out) {
    out.clear();
    std::stringstream ss(value);
    std::string item;
    while (std::getline(ss, item, ',')) {
      std::string text(trim(item));
      if (text.empty()) continue;
      std::string host = text;
      std::string port;
      if (text.starts_with("[")) {
        const auto close = text.find(']');
        if (close == std::string::npos) return badValue(key, "'" + text + "' has no ']'");
        host = text.substr(1, close - 1);
        if (close + 1 < text.size()) {
          if (text[close + 1] != ':') return badValue(key, "'" + text + "' is malformed");
          port = text.substr(close + 2);
        }
      } else if (std::count(text.begin(), text.end(), ':') == 1) {
        host = text.substr(0, text.find(':'));
        port = text.substr(text.find(':') + 1);
      }
      in6_addr six{};
      in_addr four{};
      const bool v6 = ::inet_pton(AF_INET6, host.c_str(), &six) == 1;
      if (!v6 && ::inet_pton(AF_INET, host.c_str(), &four) != 1) {
        return badValue(key, "'" + text + "' is not an IP address (with an optional :port)");
      }
      if (!port.empty()) {
        const auto number = parseInt(port);
        if (!number || *number < 1 || *number > 65535) {
          return badValue(key, "'" + text + "' has a bad port");
        }
      }
      out.push_back(v6 ? "[" + host + "]" + (port.empty() ? "" : ":" + port) : text);
    }
    return {};
  }
  domain::Status executables(std::vector<std::string>& out) { return paths(out, true); }
  domain::Status directories(std::vector<std::string>& out) { return paths(out, false); }
  // Comma-separated absolute paths of executables (or directories) that exist.
  domain::Status paths(std::vector<std::string>& out, bool executable) {
    out.clear();
    for (std::size_t at = 0; at < value.size();) {
      const auto comma = value.find(',', at);
      std::string path = value.substr(at, comma - at);
      path.erase(0, path.find_first_not_of(' '));
      path.erase(path.find_last_not_of(' ') + 1);
      if (!path.empty()) {
        if (path.front() != '/') return badValue(key, "'" + path + "' is not an absolute path");
        while (path.size() > 1 && path.back() == '/')
          path.pop_back();
        struct stat st {};
        const bool directory = ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
        if (executable && (directory || ::access(path.c_str(), X_OK) != 0)) {
          return badValue(key, "'" + path + "' is not an executable file");
        }
        if (!executable && !directory) return badValue(key, "'" + path + "' is not a directory");
        out.push_back(path);
      }
      if (comma == std::string::npos) break;
      at = comma + 1;
    }
    return {};
  }
};

struct KeyRule {
  const char* name;
  domain::Status (*apply)(Setter&);
};

using namespace std::chrono;
constexpr domain::Duration kZero{0};

// THE table of configuration keys: parsing, environment overrides (CERTSTEWARD_<KEY>) and the
// documentation check all read it, so a key cannot be known to one and missed by another.
const KeyRule kKeys[] = {
    {"server.listen", [](Setter& s) { return s.listener(s.c.listen_address, s.c.listen_port); }},
    {"server.secure_cookies", [](Setter& s) { return s.boolean(s.c.secure_cookies); }},
    {"server.trusted_proxies",
     [](Setter& s) -> domain::Status {
       s.c.trusted_proxies.clear();
       return s.cidrs(s.c.trusted_proxies);
     }},
    {"server.max_request_bytes",
     [](Setter& s) { return s.integer(s.c.max_request_bytes, 4096, 64LL * 1024 * 1024); }},
    {"server.threads", [](Setter& s) { return s.integer(s.c.http_threads, 0, 64); }},
    {"server.request_threads",
     [](Setter& s) { return s.integer(s.c.http_request_threads, 1, 256); }},
    {"server.request_queue",
     [](Setter& s) { return s.integer(s.c.http_request_queue, 1, 100000); }},
    {"server.idle_timeout",
     [](Setter& s) { return s.duration(s.c.http_idle_timeout, milliseconds{100}, hours{1}); }},
    {"server.request_timeout",
     [](Setter& s) {
       return s.duration(s.c.http_request_timeout, milliseconds{100}, minutes{10});
     }},
    {"server.tls.certificate_file",
     [](Setter& s) { return s.readableFile(s.c.tls_certificate_file); }},
    {"server.tls.key_file", [](Setter& s) { return s.readableFile(s.c.tls_key_file); }},
    {"server.tls.certificate_id", [](Setter& s) { return s.text(s.c.tls_certificate_id); }},
    {"server.tls.reload_interval",
     [](Setter& s) { return s.duration(s.c.tls_reload_interval, seconds{1}, hours{1}); }},
    {"server.tls.hsts", [](Setter& s) { return s.duration(s.c.tls_hsts, kZero, days{730}); }},
    {"server.tls.redirect_listen",
     [](Setter& s) -> domain::Status {
       if (s.value.empty()) {
         s.c.tls_redirect_address.clear();
         return {};
       }
       return s.listener(s.c.tls_redirect_address, s.c.tls_redirect_port);
     }},
    {"store.url",
     [](Setter& s) -> domain::Status {
       if (s.value != "memory:" && !s.value.starts_with("sqlite://") &&
           !s.value.starts_with("mongodb://") && !s.value.starts_with("mongodb+srv://") &&
           !s.value.starts_with("postgresql://") && !s.value.starts_with("postgres://")) {
         return badValue(s.key,
                         "expected memory:, sqlite://<path>, mongodb://<hosts>/<db> or "
                         "postgresql://<user>@<hosts>/<db>");
       }
       s.c.store_url = s.value;
       return {};
     }},
    {"store.pool_size", [](Setter& s) { return s.integer(s.c.store_pool_size, 1, 256); }},
    {"store.statement_timeout",
     [](Setter& s) {
       return s.duration(s.c.store_statement_timeout, std::chrono::seconds{1}, hours{1});
     }},
    {"jwt.secret", [](Setter& s) { return s.secret(s.c.jwt_secret); }},
    {"jwt.issuer",
     [](Setter& s) -> domain::Status {
       if (s.value.empty()) return badValue(s.key, "must not be empty");
       return s.text(s.c.jwt_issuer);
     }},
    {"jwt.audience",
     [](Setter& s) -> domain::Status {
       if (s.value.empty()) return badValue(s.key, "must not be empty");
       return s.text(s.c.jwt_audience);
     }},
    {"jwt.access_token_ttl",
     [](Setter& s) { return s.duration(s.c.access_token_ttl, seconds{30}, hours{1}); }},
    {"jwt.refresh_token_ttl",
     [](Setter& s) { return s.duration(s.c.refresh_token_ttl, minutes{5}, days{90}); }},
    {"secrets.key", [](Setter& s) { return s.secret(s.c.secrets_key); }},
    {"worker.enabled", [](Setter& s) { return s.boolean(s.c.worker_enabled); }},
    {"worker.max_concurrency",
     [](Setter& s) { return s.integer(s.c.worker_max_concurrency, 0, 256); }},
    {"worker.max_concurrent_discovery",
     [](Setter& s) { return s.integer(s.c.worker_max_concurrent_discovery, 1, 1000); }},
    {"worker.poll_interval",
     [](Setter& s) { return s.duration(s.c.worker_poll_interval, milliseconds{100}, minutes{1}); }},
    {"worker.lock_ttl",
     [](Setter& s) { return s.duration(s.c.worker_lock_ttl, seconds{1}, hours{1}); }},
    {"worker.max_attempts", [](Setter& s) { return s.integer(s.c.worker_max_attempts, 1, 100); }},
    {"worker.backoff_base",
     [](Setter& s) { return s.duration(s.c.worker_backoff_base, milliseconds{10}, hours{1}); }},
    {"worker.backoff_cap",
     [](Setter& s) { return s.duration(s.c.worker_backoff_cap, milliseconds{10}, days{1}); }},
    {"worker.shutdown_wait",
     [](Setter& s) { return s.duration(s.c.worker_shutdown_wait, kZero, minutes{10}); }},
    {"acme.ca_bundle",
     [](Setter& s) -> domain::Status {
       if (!s.value.empty() && ::access(s.value.c_str(), R_OK) != 0) {
         return badValue(s.key, "cannot read " + s.value);
       }
       return s.text(s.c.acme_ca_bundle);
     }},
    {"acme.request_timeout",
     [](Setter& s) { return s.duration(s.c.acme_request_timeout, seconds{1}, minutes{5}); }},
    {"acme.order_timeout",
     [](Setter& s) { return s.duration(s.c.acme_order_timeout, seconds{5}, hours{1}); }},
    {"acme.poll_interval",
     [](Setter& s) { return s.duration(s.c.acme_poll_interval, milliseconds{50}, minutes{1}); }},
    {"acme.failover_after_failures",
     [](Setter& s) { return s.integer(s.c.acme_failover_after_failures, 1, 100); }},
    {"acme.failback_after",
     [](Setter& s) { return s.duration(s.c.acme_failback_after, seconds{0}, hours{24 * 90}); }},
    {"acme.http01_listen",
     [](Setter& s) -> domain::Status {
       if (s.value.empty()) {
         s.c.acme_http01_address.clear();
         return {};
       }
       return s.listener(s.c.acme_http01_address, s.c.acme_http01_port);
     }},
    {"acme.rate_limits",
     [](Setter& s) -> domain::Status {
       auto limits = domain::parseQuotaLimits(s.value);
       if (!limits) return badValue(s.key, limits.error().message);
       s.c.acme_rate_limits = std::move(*limits);
       return {};
     }},
    {"dns.timeout",
     [](Setter& s) { return s.duration(s.c.dns_timeout, milliseconds{100}, minutes{1}); }},
    {"dns.propagation_timeout",
     [](Setter& s) { return s.duration(s.c.dns_propagation_timeout, seconds{1}, hours{1}); }},
    {"dns.poll_interval",
     [](Setter& s) { return s.duration(s.c.dns_poll_interval, milliseconds{50}, minutes{1}); }},
    {"dns.exec_commands", [](Setter& s) { return s.executables(s.c.dns_exec_commands); }},
    {"dns.resolvers", [](Setter& s) { return s.resolvers(s.c.dns_resolvers); }},
    {"dns.authoritative_port",
     [](Setter& s) { return s.integer(s.c.dns_authoritative_port, 1, 65535); }},
    {"distribution.exec_commands",
     [](Setter& s) { return s.executables(s.c.distribution_exec_commands); }},
    {"distribution.file_directories",
     [](Setter& s) { return s.directories(s.c.distribution_file_directories); }},
    {"distribution.timeout",
     [](Setter& s) { return s.duration(s.c.distribution_timeout, seconds{1}, minutes{10}); }},
    {"distribution.concurrency",
     [](Setter& s) { return s.integer(s.c.distribution_concurrency, 1, 64); }},
    {"network.outbound_allow",
     [](Setter& s) -> domain::Status {
       s.c.outbound_allow.clear();
       return s.cidrs(s.c.outbound_allow);
     }},
    {"notifications.public_url",
     [](Setter& s) -> domain::Status {
       if (!s.value.empty() && !s.value.starts_with("https://") &&
           !s.value.starts_with("http://")) {
         return badValue(s.key, "expected the UI's address, such as https://certs.example.com");
       }
       return s.text(s.c.notifications_public_url);
     }},
    {"notifications.timeout",
     [](Setter& s) { return s.duration(s.c.notifications_timeout, seconds{1}, minutes{5}); }},
    {"notifications.max_attempts",
     [](Setter& s) { return s.integer(s.c.notifications_max_attempts, 1, 20); }},
    {"notifications.workers",
     [](Setter& s) { return s.integer(s.c.notifications_workers, 0, 32); }},
    {"dns.exec_timeout",
     [](Setter& s) { return s.duration(s.c.dns_exec_timeout, seconds{1}, minutes{10}); }},
    {"scheduler.enabled", [](Setter& s) { return s.boolean(s.c.scheduler_enabled); }},
    {"scheduler.interval",
     [](Setter& s) { return s.duration(s.c.scheduler_interval, seconds{1}, days{1}); }},
    {"scheduler.leader_ttl",
     [](Setter& s) { return s.duration(s.c.scheduler_leader_ttl, seconds{1}, hours{1}); }},
    {"scheduler.heartbeat",
     [](Setter& s) { return s.duration(s.c.scheduler_heartbeat, milliseconds{100}, hours{1}); }},
    {"audit.signing_key", [](Setter& s) { return s.secret(s.c.audit_signing_key); }},
    {"auth.bcrypt_cost", [](Setter& s) { return s.integer(s.c.bcrypt_cost, 10, 14); }},
    {"license.public_key_file", [](Setter& s) { return s.text(s.c.license_public_key_file); }},
    {"log.level",
     [](Setter& s) -> domain::Status {
       static const std::vector<std::string> levels{"trace", "debug", "info", "warn", "error"};
       if (std::find(levels.begin(), levels.end(), s.value) == levels.end()) {
         return badValue(s.key, "expected one of trace, debug, info, warn, error");
       }
       return s.text(s.c.log_level);
     }},
    {"log.format",
     [](Setter& s) -> domain::Status {
       if (s.value != "text" && s.value != "json") return badValue(s.key, "expected text or json");
       return s.text(s.c.log_format);
     }},
    {"log.access", [](Setter& s) { return s.boolean(s.c.log_access); }},
};

// Applies one key's value to the Config through the table.
domain::Status apply(Config& c, const std::string& key, const std::string& value) {
  for (const auto& rule : kKeys) {
    if (key == rule.name) {
      Setter setter{c, key, value};
      return rule.apply(setter);
    }
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
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const auto& rule : kKeys)
      out.emplace_back(rule.name);
    return out;
  }();
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

namespace {

// The rules across keys, on a Config whose keys each applied: every one broken, in order.
std::vector<domain::Error> wholeConfigProblems(Config& config) {
  std::vector<domain::Error> problems;
  if (config.jwt_secret.empty()) {
    problems.push_back(makeError(ErrorCode::invalid_argument,
                                 "configuration key jwt.secret is required (at least 32 "
                                 "characters; set it in the file or CERTSTEWARD_JWT_SECRET)"));
  }
  if (config.secrets_key.empty()) {
    problems.push_back(makeError(ErrorCode::invalid_argument,
                                 "configuration key secrets.key is required (at least 32 "
                                 "characters; it encrypts secrets at rest — keep it safe, set it "
                                 "in the file or CERTSTEWARD_SECRETS_KEY)"));
  }
  if (config.audit_signing_key.empty()) config.audit_signing_key = config.jwt_secret;
  if (config.tls_certificate_file.empty() != config.tls_key_file.empty()) {
    problems.push_back(makeError(ErrorCode::invalid_argument,
                                 "configuration keys server.tls.certificate_file and "
                                 "server.tls.key_file go together: set both or neither"));
  }
  if (!config.tlsEnabled() &&
      (config.tls_hsts.count() > 0 || !config.tls_redirect_address.empty())) {
    problems.push_back(
        makeError(ErrorCode::invalid_argument,
                  "configuration keys server.tls.hsts and server.tls.redirect_listen "
                  "need TLS on: set server.tls.certificate_file and key_file, or "
                  "server.tls.certificate_id"));
  }
  if (!config.tls_certificate_id.empty() && !domain::isValidId(config.tls_certificate_id)) {
    problems.push_back(makeError(ErrorCode::invalid_argument,
                                 "configuration key server.tls.certificate_id: not a certificate "
                                 "id (GET /api/v1/projects/<id>/certificates lists them)"));
  }
  // Cookies over TLS are sent over TLS only.
  if (config.tlsEnabled()) config.secure_cookies = true;
  if (!config.license_public_key_file.empty()) {
    std::ifstream key(config.license_public_key_file);
    if (!key) {
      problems.push_back(makeError(ErrorCode::invalid_argument,
                                   "configuration key license.public_key_file: cannot read " +
                                       config.license_public_key_file));
    }
  }
  if (config.scheduler_heartbeat >= config.scheduler_leader_ttl) {
    problems.push_back(makeError(ErrorCode::invalid_argument,
                                 "configuration key scheduler.heartbeat must be shorter than "
                                 "scheduler.leader_ttl"));
  }
  return problems;
}

std::vector<std::string> configWarnings(const Config& config) {
  std::vector<std::string> warnings;
  // A listener others can reach, behind proxies trusted by whole ranges: any host there (or any
  // local process, for loopback) can write X-Forwarded-For and pass as any client address,
  // slipping past the per-address login limits.
  const auto listener = domain::parseIpAddress(config.listen_address);
  const bool reachable =
      config.listen_address != "localhost" &&
      !(listener && domain::classify(*listener) == domain::AddressClass::loopback);
  if (reachable && !config.tlsEnabled() && config.trusted_proxies.empty()) {
    warnings.push_back("the server listens on " + config.listen_address +
                       " over plain HTTP with no proxy in front: passwords and tokens cross the "
                       "network in clear; set server.tls.certificate_file and key_file (or "
                       "server.tls.certificate_id), or serve it behind a TLS proxy");
  }
  if (reachable) {
    for (const auto& range : config.trusted_proxies) {
      if (range.bits < (range.base.v4 ? 24 : 120)) {
        const std::string text =
            domain::formatIpAddress(range.base) + "/" + std::to_string(range.bits);
        warnings.push_back("server.trusted_proxies trusts " + text + " (a whole range) while " +
                           "the server listens on " + config.listen_address +
                           ": any host there can set X-Forwarded-For; name the proxies' own "
                           "addresses instead");
      }
    }
  }
  return warnings;
}

std::map<std::string, std::string> mergedValues(
    const std::map<std::string, std::string>& fileValues,
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  std::map<std::string, std::string> merged = fileValues;
  for (const auto& key : knownKeys()) {
    if (auto v = getenv(environmentName(key))) merged[key] = *v;
  }
  return merged;
}

bool isSecretKey(std::string_view key) {
  return key == "jwt.secret" || key == "secrets.key" || key == "audit.signing_key" ||
         key.ends_with("password") || key.ends_with("api_key") || key.ends_with("token");
}

// `text` with %XX escapes decoded, in lower case (a URL query key as libpq reads it).
std::string percentDecodedLower(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() &&
        std::isxdigit(static_cast<unsigned char>(text[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(text[i + 2]))) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += text[i];
    }
  }
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// A value as it may be shown: secrets masked, a URL's credentials masked.
std::string shown(const std::string& key, const std::string& value) {
  if (isSecretKey(key))
    return value.empty() ? "" : "******** (" + std::to_string(value.size()) + " characters)";
  std::string out = value;
  const auto scheme = out.find("://");
  const auto at = out.find('@');
  if (scheme != std::string::npos && at != std::string::npos && at > scheme) {
    out = out.substr(0, scheme + 3) + "********" + out.substr(at);
  }
  // libpq also takes the password as a query parameter (postgresql://h/db?password=...), its
  // name possibly percent-encoded (?%70assword=...), and so do sslpassword and the like.
  if (const auto query = out.find('?'); query != std::string::npos) {
    std::string rebuilt = out.substr(0, query + 1);
    for (std::size_t pos = query + 1; pos <= out.size();) {
      const auto amp = std::min(out.find('&', pos), out.size());
      std::string param = out.substr(pos, amp - pos);
      const auto eq = param.find('=');
      if (eq != std::string::npos &&
          percentDecodedLower(param.substr(0, eq)).ends_with("password")) {
        param = param.substr(0, eq + 1) + "********";
      }
      rebuilt += param;
      if (amp < out.size()) rebuilt += '&';
      pos = amp + 1;
    }
    out = rebuilt;
  }
  return out;
}

}  // namespace

domain::Result<Config> loadConfig(
    const std::map<std::string, std::string>& fileValues,
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  Config config;
  for (const auto& [key, value] : mergedValues(fileValues, getenv)) {
    if (auto s = apply(config, key, value); !s) return s.error();
  }
  auto problems = wholeConfigProblems(config);
  if (!problems.empty()) return problems.front();
  return config;
}

ConfigReport checkConfig(
    const std::map<std::string, std::string>& fileValues,
    const std::function<std::optional<std::string>(const std::string&)>& getenv) {
  ConfigReport report;
  Config config;
  const auto merged = mergedValues(fileValues, getenv);
  for (const auto& [key, value] : merged) {
    if (auto s = apply(config, key, value); !s) report.problems.push_back(s.error().message);
  }
  for (const auto& key : knownKeys()) {
    const auto it = merged.find(key);
    if (it == merged.end()) {
      report.lines.push_back({key, "(default)", "default"});
    } else {
      report.lines.push_back(
          {key, shown(key, it->second), getenv(environmentName(key)) ? "environment" : "file"});
    }
  }
  for (const auto& e : wholeConfigProblems(config))
    report.problems.push_back(e.message);
  report.warnings = configWarnings(config);
  return report;
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
