#include <certsteward/services/ssh_host_key_service.hpp>

#include <certsteward/domain/network_names.hpp>

namespace certsteward::services {

domain::Result<ports::SshHostKey> SshHostKeyService::fetch(const Principal& who,
                                                           const RequestContext& ctx,
                                                           const domain::Id& projectId,
                                                           const std::string& host, int port) {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  if (auto s = access_.check(who, Action::manage_project_config, projectId); !s) {
    return s.error();
  }
  if (!domain::isHostName(host)) return domain::fieldError("host must be a host name or address");
  if (port < 1 || port > 65535) return domain::fieldError("port must be 1..65535");
  auto hits =
      p_.rateLimits.hit("ssh-host-key:" + who.user.id, std::chrono::minutes{1}, p_.clock.now());
  if (!hits) return hits.error();
  if (*hits > kHostKeyFetchesPerMinute) {
    return makeError(domain::ErrorCode::resource_exhausted,
                     "too many host key fetches; wait a minute", "RATE_LIMITED");
  }
  const std::string where = host + ":" + std::to_string(port);
  auto key = p_.keys.read(host, port, timeout_);
  const std::string details =
      key ? key->key_type + " " + key->fingerprint : "failed: " + key.error().message;
  if (auto s =
          audit_.record(&who, ctx, "ssh_host_key.read", "ssh_host_key", where, projectId, details);
      !s) {
    return s.error();
  }
  return key;
}

}  // namespace certsteward::services
