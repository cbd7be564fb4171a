// SshHostKeyService: "Fetch host key" for an SSH target — the key a host offers, read without
// authenticating, for a person to confirm before it is pinned as the target's host_key_sha256.
// Nothing is trusted or saved here: the pin is saved with the module configuration, and a key
// that changes later still fails the delivery with HOST_KEY_MISMATCH. Project admins only;
// every attempt is audited; the connection goes through the outbound policy.
#pragma once

#include <algorithm>
#include <string>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/rate_limit_counter.hpp>
#include <certsteward/ports/ssh_host_keys.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>

namespace certsteward::services {

// How long a fetch waits for the host at most (it holds a request thread meanwhile), and how
// many fetches a person may start a minute.
inline constexpr domain::Duration kHostKeyTimeout = std::chrono::seconds{10};
inline constexpr std::int64_t kHostKeyFetchesPerMinute = 10;

class SshHostKeyService {
 public:
  struct Ports {
    ports::SshHostKeys& keys;
    ports::RateLimitCounter& rateLimits;
    const ports::Clock& clock;
  };
  // `timeout`: the connection's bound, at most kHostKeyTimeout.
  SshHostKeyService(Ports ports, const AccessControl& access, AuditService& audit,
                    domain::Duration timeout)
      : p_(ports), access_(access), audit_(audit), timeout_(std::min(timeout, kHostKeyTimeout)) {}

  // The key `host`:`port` offers. not_found for a project the caller cannot see, then
  // permission_denied below project admin; invalid_argument (422 naming `host` or `port`) for a
  // host that is no host name or address, or a port outside 1..65535; the port's errors
  // otherwise (refused by the outbound policy, nothing answering). Audited
  // `ssh_host_key.read` (resource host:port), with the fingerprint or the failure.
  // resource_exhausted RATE_LIMITED past kHostKeyFetchesPerMinute for the caller.
  domain::Result<ports::SshHostKey> fetch(const Principal& who, const RequestContext& ctx,
                                          const domain::Id& projectId, const std::string& host,
                                          int port);

 private:
  Ports p_;
  const AccessControl& access_;
  AuditService& audit_;
  domain::Duration timeout_;
};

}  // namespace certsteward::services
