// Metrics: counters, gauges and histograms exported for Prometheus.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace certsteward::ports {

using MetricLabels = std::map<std::string, std::string>;
using MetricSamples = std::map<std::string, std::vector<std::pair<MetricLabels, double>>>;

class Metrics {
 public:
  virtual ~Metrics() = default;

  /** Adds `value` to a counter. Never fails. Thread-safe. */
  virtual void increment(std::string_view name, const MetricLabels& labels, double value = 1.0) = 0;
  /** Sets a gauge. Never fails. Thread-safe. */
  virtual void set(std::string_view name, const MetricLabels& labels, double value) = 0;
  /** Records one observation in a histogram (seconds for durations). Thread-safe. */
  virtual void observe(std::string_view name, const MetricLabels& labels, double value) = 0;

  /**
   * Everything recorded, plus `gauges` — samples computed at scrape time (name -> labelled
   * values) — in the adapter's text exposition format (what GET /metrics answers); empty when
   * the adapter exposes nothing. Thread-safe.
   */
  virtual std::string exposition(const MetricSamples& gauges) const {
    (void)gauges;
    return {};
  }
};

using MetricsPtr = std::unique_ptr<Metrics>;

}  // namespace certsteward::ports
