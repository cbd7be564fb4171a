// Configuration of the packaged server: dotted keys read from a `key = value` file named by
// --config, overridden by CERTSTEWARD_<KEY> environment variables, validated into Config.
// docs/configuration.md lists every key.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/ca_quota.hpp>
#include <certsteward/domain/outbound.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::app {

struct Config {
  // server.*
  std::string listen_address = "127.0.0.1";
  std::uint16_t listen_port = 8080;
  bool secure_cookies = false;
  std::vector<domain::Cidr> trusted_proxies;  // whose X-Forwarded-For counts; empty: none
  std::size_t max_request_bytes = 1024 * 1024;
  int http_threads = 0;                  // 0: one per CPU core, at least 2
  int http_request_threads = 4;          // threads for requests that may block (mutations)
  std::size_t http_request_queue = 256;  // requests waiting for those threads; more get 503
  domain::Duration http_idle_timeout = std::chrono::seconds{75};
  domain::Duration http_request_timeout = std::chrono::seconds{30};
  // server.tls.*: HTTPS on the listener when a certificate file or a managed certificate is set.
  std::string tls_certificate_file;  // PEM, the leaf first, then its chain
  std::string tls_key_file;          // PEM private key of that leaf
  std::string tls_certificate_id;    // a managed certificate, served as it is renewed
  domain::Duration tls_reload_interval = std::chrono::minutes{1};  // checks for a new one
  domain::Duration tls_hsts{0};      // Strict-Transport-Security max-age; 0: not sent
  std::string tls_redirect_address;  // a plain-HTTP listener that only redirects; empty: none
  std::uint16_t tls_redirect_port = 0;
  bool tlsEnabled() const { return !tls_certificate_file.empty() || !tls_certificate_id.empty(); }
  // store.*
  std::string store_url = "sqlite:///var/lib/certsteward/certsteward.db";
  int store_pool_size = 8;  // PostgreSQL: connections per instance at most
  domain::Duration store_statement_timeout = std::chrono::seconds{10};  // PostgreSQL
  // jwt.*
  std::string jwt_secret;
  std::string jwt_issuer = "certsteward";
  std::string jwt_audience = "certsteward-api";
  domain::Duration access_token_ttl = std::chrono::minutes{15};
  domain::Duration refresh_token_ttl = std::chrono::days{7};
  // secrets.*
  std::string secrets_key;
  // worker.*
  bool worker_enabled = true;  // false: an API-only instance (others run the jobs)
  int worker_max_concurrency = 4;
  int worker_max_concurrent_discovery = 50;
  domain::Duration worker_poll_interval = std::chrono::seconds{2};
  domain::Duration worker_lock_ttl = std::chrono::minutes{5};
  int worker_max_attempts = 3;
  domain::Duration worker_backoff_base = std::chrono::seconds{30};
  domain::Duration worker_backoff_cap = std::chrono::minutes{10};
  domain::Duration worker_shutdown_wait = std::chrono::seconds{55};
  // acme.*
  std::string acme_ca_bundle;  // extra PEM trust for the CA's HTTPS (a private or test CA)
  domain::Duration acme_request_timeout = std::chrono::seconds{30};
  domain::Duration acme_order_timeout = std::chrono::minutes{5};
  domain::Duration acme_poll_interval = std::chrono::milliseconds{500};
  // A certificate's order goes on to its next CA after this many failed attempts in a row with
  // one (at once when the CA is unreachable, rate-limits or is refused by CAA), and renewals try
  // the first choice again this long after a failover.
  int acme_failover_after_failures = 3;
  domain::Duration acme_failback_after = std::chrono::hours{24};
  // Per ACME directory, limits that replace the CA's published defaults (acme.rate_limits).
  std::vector<domain::CaQuotaLimits> acme_rate_limits;
  // A plain-HTTP listener answering /.well-known/acme-challenge/<token> for certificates whose
  // challenge is http-01 without a webroot; empty: none (such certificates are refused).
  std::string acme_http01_address;
  std::uint16_t acme_http01_port = 0;
  // dns.*
  domain::Duration dns_timeout = std::chrono::seconds{5};
  domain::Duration dns_propagation_timeout = std::chrono::minutes{2};
  domain::Duration dns_poll_interval = std::chrono::milliseconds{500};
  // Executables DNS credentials of provider "exec" may name (absolute paths); none by default.
  std::vector<std::string> dns_exec_commands;
  domain::Duration dns_exec_timeout = std::chrono::seconds{60};
  // Resolvers asked for the CNAMEs that delegate `_acme-challenge` (address[:port] each); none:
  // those of /etc/resolv.conf.
  std::vector<std::string> dns_resolvers;
  // The port the servers found through a zone's NS records are asked at (53; another for tests or
  // servers that listen elsewhere).
  std::uint16_t dns_authoritative_port = 53;
  // distribution.*
  // Executables a `file` target's reload_command may name (absolute paths); none by default.
  std::vector<std::string> distribution_exec_commands;
  // Directories below which `file` targets may write; none by default (no file target).
  std::vector<std::string> distribution_file_directories;
  domain::Duration distribution_timeout = std::chrono::seconds{30};  // per target step
  std::int64_t distribution_concurrency = 8;  // targets at once, per distribution
  // notifications.*
  std::string notifications_public_url;  // the UI's address, for {{link}}; empty: no links
  domain::Duration notifications_timeout = std::chrono::seconds{30};  // one send
  std::int64_t notifications_max_attempts = 5;  // per delivery, with the worker's backoff
  std::int64_t notifications_workers = 2;       // threads of the notification lane (0: none)
  // network.*
  // Ranges project-aimed connections (webhook distribution, notification channels, their tests)
  // may reach besides global addresses; none by default (loopback, private, link-local ... are
  // refused).
  std::vector<domain::Cidr> outbound_allow;
  // scheduler.*
  bool scheduler_enabled = true;  // false: this instance never leads
  domain::Duration scheduler_interval = std::chrono::hours{1};
  domain::Duration scheduler_leader_ttl = std::chrono::seconds{90};
  domain::Duration scheduler_heartbeat = std::chrono::seconds{30};
  // audit.*
  std::string audit_signing_key;  // falls back to jwt.secret
  // auth.*
  int bcrypt_cost = 12;
  // license.*
  std::string license_public_key_file;  // PEM of the Ed25519 key that signs licence keys
  // log.*
  std::string log_level = "info";
  std::string log_format = "text";  // or "json": one object per line
  bool log_access = true;           // a line per answered API request
};

// CERTSTEWARD_ + the key upper-cased with dots as underscores.
std::string environmentName(std::string_view key);

// Every key Config understands, in documentation order.
const std::vector<std::string>& knownKeys();

// Parses the `key = value` file format: one pair per line, '#' starts a comment line, values
// may be double-quoted. invalid_argument names the line and key.
domain::Result<std::map<std::string, std::string>> parseConfigText(std::string_view text);

// Builds a Config from file values overridden by the environment (`getenv` is injectable for
// tests). invalid_argument names the offending key; unknown keys are refused.
domain::Result<Config> loadConfig(
    const std::map<std::string, std::string>& fileValues,
    const std::function<std::optional<std::string>(const std::string&)>& getenv);

// Reads the file (when `path` is set) and the process environment.
domain::Result<Config> loadConfigFromFileAndEnvironment(const std::optional<std::string>& path);

// `certsteward config check`: every known key with its value as it may be shown (secrets and a
// URL's credentials masked) and where it came from (file, environment or default), and every
// problem — not only the first.
struct ConfigReport {
  struct Line {
    std::string key;
    std::string value;
    std::string source;  // "file", "environment" or "default"
  };
  std::vector<Line> lines;
  std::vector<std::string> problems;
  std::vector<std::string> warnings;  // allowed, but likely not meant (exit status unchanged)
};
ConfigReport checkConfig(
    const std::map<std::string, std::string>& fileValues,
    const std::function<std::optional<std::string>(const std::string&)>& getenv);

}  // namespace certsteward::app
