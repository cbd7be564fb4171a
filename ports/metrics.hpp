// Metrics: counters, gauges and histograms exported for Prometheus.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>

namespace certsteward::ports {

using MetricLabels = std::map<std::string, std::string>;

class Metrics {
 public:
  virtual ~Metrics() = default;

  /** Adds `value` to a counter. Never fails. Thread-safe. */
  virtual void increment(std::string_view name, const MetricLabels& labels, double value = 1.0) = 0;
  /** Sets a gauge. Never fails. Thread-safe. */
  virtual void set(std::string_view name, const MetricLabels& labels, double value) = 0;
  /** Records one observation in a histogram (seconds for durations). Thread-safe. */
  virtual void observe(std::string_view name, const MetricLabels& labels, double value) = 0;
};

using MetricsPtr = std::unique_ptr<Metrics>;

}  // namespace certsteward::ports
