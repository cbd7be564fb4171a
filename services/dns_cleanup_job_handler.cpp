// DNS clean-up jobs.
#include <certsteward/services/dns_cleanup_job_handler.hpp>

namespace certsteward::services {

domain::Status DnsCleanupJobHandler::attempt(const domain::Job& job, const domain::StopSignal& stop,
                                             const Log& log, AttemptNotes& /*notes*/) {
  const auto name = job.payload.find("name");
  const auto value = job.payload.find("value");
  if (name == job.payload.end() || value == job.payload.end()) {
    return makeError(domain::ErrorCode::invalid_argument, "the cleanup_dns job names no record");
  }
  ZoneRoutedDns dns(p_, job.project_id, stop);
  if (auto removed = dns.cleanup(ports::TxtRecord{"", name->second, value->second, 60}); !removed) {
    return removed;
  }
  log(domain::LogLevel::info, "removed the TXT record " + name->second);
  return {};
}

}  // namespace certsteward::services
