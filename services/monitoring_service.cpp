#include <certsteward/services/monitoring_service.hpp>

#include <array>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/enum_names.hpp>
#include <certsteward/domain/job.hpp>
#include <certsteward/domain/license.hpp>

namespace certsteward::services {

domain::Status MonitoringService::ready() {
  return store_.ping();
}

ports::MetricSamples MonitoringService::gauges(domain::Timestamp now) {
  ports::MetricSamples gauges;
  const bool answering = store_.ping().ok();
  gauges["certsteward_ready"].push_back({{}, answering ? 1.0 : 0.0});
  // A store that does not answer would make every query below wait for its timeout.
  if (!answering) return gauges;
  if (auto certs = store_.certificates().countByStatus()) {
    auto& samples = gauges["certsteward_certificates"];
    for (const auto status : domain::everyValue<domain::CertificateStatus>()) {
      const auto it = certs->find(status);
      samples.push_back({{{"status", std::string(domain::nameOf(status))}},
                         it == certs->end() ? 0.0 : static_cast<double>(it->second)});
    }
  }
  if (auto jobs = store_.jobs().countByTypeAndStatus()) {
    auto& samples = gauges["certsteward_jobs"];
    for (const auto type : domain::everyValue<domain::JobType>()) {
      for (const auto status : domain::everyValue<domain::JobStatus>()) {
        const auto it = jobs->find({type, status});
        samples.push_back({{{"type", std::string(domain::nameOf(type))},
                            {"lane", std::string(nameOf(domain::laneOf(type)))},
                            {"status", std::string(domain::nameOf(status))}},
                           it == jobs->end() ? 0.0 : static_cast<double>(it->second)});
      }
    }
  }
  constexpr std::array<int, 3> kWindowsDays{1, 7, 30};
  std::vector<domain::Timestamp> instants{now};
  for (const int days : kWindowsDays)
    instants.push_back(now + std::chrono::days{days});
  std::vector<std::int64_t> expiring;
  for (const auto instant : instants) {
    auto n = store_.certificates().countExpiringBefore(instant);
    if (!n) break;
    expiring.push_back(*n);
  }
  if (expiring.size() == instants.size()) {
    gauges["certsteward_certificates_expired"].push_back({{}, static_cast<double>(expiring[0])});
    auto& samples = gauges["certsteward_certificates_expiring"];
    for (std::size_t i = 0; i < kWindowsDays.size(); ++i) {
      samples.push_back({{{"within_days", std::to_string(kWindowsDays[i])}},
                         static_cast<double>(expiring[i + 1])});
    }
  }
  auto license = store_.license().get();
  auto used = store_.certificates().countAll();
  if (license && used) {
    const auto view = licenseStatusView(*license, now);
    gauges["certsteward_license_certificates_used"].push_back(
        {{{"plan", view.plan}}, static_cast<double>(*used)});
    gauges["certsteward_license_certificate_limit"].push_back(
        {{{"plan", view.plan}}, static_cast<double>(view.cert_limit)});
  }
  return gauges;
}

}  // namespace certsteward::services
