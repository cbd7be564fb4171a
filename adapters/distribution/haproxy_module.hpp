// The `haproxy` module: hot update through HAProxy's runtime API (`set ssl cert` with the leaf,
// chain and key, then `commit ssl cert`) over TCP or a unix socket — no reload, no dropped
// connection. HAProxy must already have the certificate `cert_name` loaded (the name its
// configuration uses). Rollback commits the version the service delivered before, the same way.
#pragma once

#include <certsteward/ports/distribution_module.hpp>

namespace certsteward::adapters::distribution {

class HaproxyModule : public ports::DistributionModule {
 public:
  ports::TargetOutcome plan(const ports::TargetAccess& target,
                            const domain::CertificateVersion& next) override;
  ports::TargetOutcome deliver(const ports::TargetAccess& target,
                               const domain::CertificateVersion& next) override;
  ports::TargetOutcome restore(const ports::TargetAccess& target,
                               const domain::CertificateVersion* previous) override;
  ports::TargetOutcome check(const ports::TargetAccess& target) override;
  bool supportsRollback() const override { return true; }
  bool rollbackNeedsPreviousVersion() const override { return true; }
};

}  // namespace certsteward::adapters::distribution
