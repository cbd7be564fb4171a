// The `ssh` module: the certificate files over SFTP (libssh) to a host, then its reload command
// over an exec channel. The host key is checked against the target's host_key_sha256 before
// authenticating — any other key is HOST_KEY_MISMATCH and nothing is sent. Credentials: an
// `ssh_key` (the secret is the private key, OpenSSH or PEM) or a `password`, with the
// credential's username. One connection per target and action. Thread-safe.
#pragma once

#include <certsteward/ports/distribution_module.hpp>

namespace certsteward::adapters::distribution {

class SshModule : public ports::DistributionModule {
 public:
  ports::TargetOutcome plan(const ports::TargetAccess& target,
                            const domain::CertificateVersion& next) override;
  ports::TargetOutcome deliver(const ports::TargetAccess& target,
                               const domain::CertificateVersion& next) override;
  ports::TargetOutcome restore(const ports::TargetAccess& target,
                               const domain::CertificateVersion* previous) override;
  ports::TargetOutcome check(const ports::TargetAccess& target) override;
  ports::TargetOutcome putChallengeFile(const ports::TargetAccess& target, const std::string& token,
                                        const std::string& content) override;
  ports::TargetOutcome removeChallengeFile(const ports::TargetAccess& target,
                                           const std::string& token) override;
  bool supportsRollback() const override { return true; }
  bool rollbackNeedsPreviousVersion() const override { return false; }
};

}  // namespace certsteward::adapters::distribution
