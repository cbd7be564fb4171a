// The SshHostKeys port over libssh: connects, reads the host key of the key exchange, and
// disconnects before any authentication. The connection goes to an address the outbound policy
// checked (network.outbound_allow), never to a name resolved again by libssh.
#pragma once

#include <memory>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/ports/ssh_host_keys.hpp>

namespace certsteward::adapters::distribution {

class SshHostKeyReader : public ports::SshHostKeys {
 public:
  explicit SshHostKeyReader(std::shared_ptr<const common::Outbound> outbound)
      : outbound_(std::move(outbound)) {}

  domain::Result<ports::SshHostKey> read(const std::string& host, int port,
                                         domain::Duration timeout) override;

 private:
  std::shared_ptr<const common::Outbound> outbound_;
};

}  // namespace certsteward::adapters::distribution
