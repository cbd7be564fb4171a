// The cleanup_dns job: removes the challenge TXT record its payload names (`name`, `value`)
// through the zone of the project that covers it — a removal that failed after an issuance.
#pragma once

#include <certsteward/services/job_handler.hpp>
#include <certsteward/services/zone_routed_dns.hpp>

namespace certsteward::services {

class DnsCleanupJobHandler : public JobHandler {
 public:
  explicit DnsCleanupJobHandler(ZoneRoutedDns::Ports ports) : p_(ports) {}

  std::vector<domain::JobType> types() const override { return {domain::JobType::cleanup_dns}; }
  // invalid_argument when the payload names no record; the zone's or provider's error otherwise.
  domain::Status attempt(const domain::Job& job, const domain::StopSignal& stop, const Log& log,
                         AttemptNotes& notes) override;

 private:
  ZoneRoutedDns::Ports p_;
};

}  // namespace certsteward::services
