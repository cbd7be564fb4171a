// The `webhook` module: an HTTPS POST of a JSON document per target — the action (`deploy` or
// `rollback`), a delivery id, the certificate's metadata, the leaf and chain PEM, and the private
// key only when include_private_key is true — signed with HMAC-SHA256 over
// "<timestamp>.<body>" with the credential's secret:
//   X-CertSteward-Timestamp: <unix seconds>
//   X-CertSteward-Signature: sha256=<hex>
//   X-CertSteward-Delivery: <id>
// A 2xx answer is success; anything else is REJECTED with the status. Redirects are not followed.
// Rollback posts the version the service delivered before. Every connection goes through the
// server's outbound policy; a failed one is CONNECT_FAILED "could not connect", whatever the
// cause. Thread-safe.
#pragma once

#include <memory>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/ports/distribution_module.hpp>

namespace certsteward::adapters::distribution {

class WebhookModule : public ports::DistributionModule {
 public:
  explicit WebhookModule(std::shared_ptr<const common::Outbound> outbound);
  ports::TargetOutcome plan(const ports::TargetAccess& target,
                            const domain::CertificateVersion& next) override;
  ports::TargetOutcome deliver(const ports::TargetAccess& target,
                               const domain::CertificateVersion& next) override;
  ports::TargetOutcome restore(const ports::TargetAccess& target,
                               const domain::CertificateVersion* previous) override;
  ports::TargetOutcome check(const ports::TargetAccess& target) override;
  bool supportsRollback() const override { return true; }
  bool rollbackNeedsPreviousVersion() const override { return true; }

 private:
  std::shared_ptr<const common::Outbound> outbound_;
};

}  // namespace certsteward::adapters::distribution
