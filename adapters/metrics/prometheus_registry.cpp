// Prometheus text rendering.
#include <certsteward/adapters/metrics/prometheus_registry.hpp>

#include <array>
#include <cmath>
#include <cstdio>
#include <span>

namespace certsteward::adapters::metrics {
namespace {

constexpr std::array<double, 12> kBuckets{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05,
                                          0.1,   0.25,   0.5,   1.0,  2.5,   5.0};
// Work that talks to CAs and DNS servers (jobs, issuance, sweeps) takes seconds to minutes.
constexpr std::array<double, 12> kLongBuckets{0.05, 0.1,  0.25, 0.5,  1.0,   2.5,
                                              5.0,  10.0, 30.0, 60.0, 120.0, 300.0};

std::span<const double> bucketsFor(std::string_view name) {
  const bool slow = name.starts_with("certsteward_job_") ||
                    name.starts_with("certsteward_issuance_") ||
                    name.starts_with("certsteward_scheduler_");
  return slow ? std::span<const double>(kLongBuckets) : std::span<const double>(kBuckets);
}

std::string number(double v) {
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) {
    std::snprintf(buf, sizeof buf, "%.0f", v);
  } else {
    std::snprintf(buf, sizeof buf, "%.9g", v);
  }
  return buf;
}

std::string labels(const ports::MetricLabels& l, const std::string& extraKey = {},
                   const std::string& extraValue = {}) {
  if (l.empty() && extraKey.empty()) return {};
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : l) {
    if (!first) out += ",";
    out += k + "=\"" + PrometheusRegistry::escapeLabel(v) + "\"";
    first = false;
  }
  if (!extraKey.empty()) {
    if (!first) out += ",";
    out += extraKey + "=\"" + extraValue + "\"";
  }
  return out + "}";
}

}  // namespace

PrometheusRegistry::PrometheusRegistry()
    : help_{{"certsteward_http_requests_total", "HTTP requests by route, method and status."},
            {"certsteward_http_request_duration_seconds", "HTTP request latency by route."},
            {"certsteward_certificates", "Certificates by status."},
            {"certsteward_certificates_expiring",
             "Issued certificates expiring within within_days days (expired ones included)."},
            {"certsteward_certificates_expired", "Issued certificates already expired."},
            {"certsteward_ready", "1 while the store answers (GET /readyz answers 200), else 0."},
            {"certsteward_jobs", "Jobs by type, lane and status."},
            {"certsteward_job_attempts_total",
             "Job attempts by type, lane and outcome (succeeded, retrying, dead, cancelled, "
             "released)."},
            {"certsteward_job_attempt_duration_seconds", "Duration of one job attempt by type."},
            {"certsteward_issuance_latency_seconds",
             "From a certificate's issue or renew job being queued to the certificate stored."},
            {"certsteward_events_total", "Events raised by kind."},
            {"certsteward_scheduler_leader", "1 while this instance leads the scheduler."},
            {"certsteward_scheduler_sweeps_total", "Scheduler sweeps by result."},
            {"certsteward_scheduler_sweep_duration_seconds", "Duration of one scheduler sweep."},
            {"certsteward_scheduler_renewals_queued_total", "Renewal jobs queued by sweeps."},
            {"certsteward_scheduler_expiry_checks_queued_total",
             "Expiry check jobs queued by sweeps."},
            {"certsteward_license_certificates_used", "Certificates counted against the licence."},
            {"certsteward_license_certificate_limit",
             "The licence's certificate cap (0 = unlimited)."}} {}

std::string PrometheusRegistry::escapeLabel(const std::string& value) {
  std::string out;
  for (const char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void PrometheusRegistry::increment(std::string_view name, const ports::MetricLabels& l,
                                   double value) {
  std::lock_guard lock(mu_);
  counters_[std::string(name)][l] += value;
}

void PrometheusRegistry::set(std::string_view name, const ports::MetricLabels& l, double value) {
  std::lock_guard lock(mu_);
  gauges_[std::string(name)][l] = value;
}

void PrometheusRegistry::declareHistogram(std::string_view name, const ports::MetricLabels& l) {
  std::lock_guard lock(mu_);
  auto& h = histograms_[std::string(name)][l];
  if (h.buckets.empty()) h.buckets.assign(bucketsFor(name).size(), 0);
}

void PrometheusRegistry::observe(std::string_view name, const ports::MetricLabels& l,
                                 double value) {
  std::lock_guard lock(mu_);
  auto& h = histograms_[std::string(name)][l];
  const auto bounds = bucketsFor(name);
  if (h.buckets.empty()) h.buckets.assign(bounds.size(), 0);
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    if (value <= bounds[i]) {
      ++h.buckets[i];
      break;
    }
  }
  ++h.count;
  h.sum += value;
}

std::string PrometheusRegistry::render(const ports::MetricSamples& extra) const {
  std::string out;
  const auto header = [&](const std::string& name, const char* type) {
    if (const auto it = help_.find(name); it != help_.end()) {
      out += "# HELP " + name + " " + it->second + "\n";
    }
    out += "# TYPE " + name + " " + type + "\n";
  };
  std::lock_guard lock(mu_);
  for (const auto& [name, series] : counters_) {
    header(name, "counter");
    for (const auto& [l, v] : series)
      out += name + labels(l) + " " + number(v) + "\n";
  }
  for (const auto& [name, series] : gauges_) {
    header(name, "gauge");
    for (const auto& [l, v] : series)
      out += name + labels(l) + " " + number(v) + "\n";
  }
  for (const auto& [name, samples] : extra) {
    header(name, "gauge");
    for (const auto& [l, v] : samples)
      out += name + labels(l) + " " + number(v) + "\n";
  }
  for (const auto& [name, series] : histograms_) {
    header(name, "histogram");
    const auto bounds = bucketsFor(name);
    for (const auto& [l, h] : series) {
      std::uint64_t cumulative = 0;
      for (std::size_t i = 0; i < bounds.size(); ++i) {
        cumulative += h.buckets[i];
        out += name + "_bucket" + labels(l, "le", number(bounds[i])) + " " +
               std::to_string(cumulative) + "\n";
      }
      out += name + "_bucket" + labels(l, "le", "+Inf") + " " + std::to_string(h.count) + "\n";
      out += name + "_sum" + labels(l) + " " + number(h.sum) + "\n";
      out += name + "_count" + labels(l) + " " + std::to_string(h.count) + "\n";
    }
  }
  return out;
}

}  // namespace certsteward::adapters::metrics
