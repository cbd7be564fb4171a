// SshHostKeys: the host key an SSH server offers, read before anything of ours is sent (no
// authentication is tried), so that a person can confirm it and pin it as a target's
// host_key_sha256. Implementations go through the server's outbound policy.
#pragma once

#include <string>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::ports {

struct SshHostKey {
  std::string fingerprint;  // "SHA256:<43 base64 characters>", as ssh-keygen -lf prints it
  std::string key_type;     // "ssh-ed25519", "ecdsa-sha2-nistp256", "ssh-rsa", ...
};

class SshHostKeys {
 public:
  virtual ~SshHostKeys() = default;

  /**
   * The key `host`:`port` offers. failed_precondition (reason OUTBOUND_REFUSED) when the
   * outbound policy refuses the address; unavailable ("could not connect to host:port") when
   * nothing answers as an SSH server within `timeout`. Thread-safe.
   */
  virtual domain::Result<SshHostKey> read(const std::string& host, int port,
                                          domain::Duration timeout) = 0;
};

}  // namespace certsteward::ports
