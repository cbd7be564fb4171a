// PrometheusRegistry: the Metrics port kept in memory and rendered in the Prometheus text
// exposition format (version 0.0.4) for GET /metrics. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <certsteward/ports/metrics.hpp>

namespace certsteward::adapters::metrics {

class PrometheusRegistry : public ports::Metrics {
 public:
  // `help` texts for the names it knows; unknown names render without HELP.
  PrometheusRegistry();

  void increment(std::string_view name, const ports::MetricLabels& labels, double value) override;
  void set(std::string_view name, const ports::MetricLabels& labels, double value) override;
  void observe(std::string_view name, const ports::MetricLabels& labels, double value) override;

  // Creates the histogram series with no observations (every bucket 0) unless it exists, so
  // dashboards meet it before its first observation. Counters: increment by 0.
  void declareHistogram(std::string_view name, const ports::MetricLabels& labels);

  // Renders everything recorded. `gauges` are extra samples computed at scrape time (name ->
  // labelled values), rendered as gauges.
  std::string render(const ports::MetricSamples& gauges = {}) const;
  std::string exposition(const ports::MetricSamples& gauges) const override {
    return render(gauges);
  }

  static std::string escapeLabel(const std::string& value);

 private:
  struct Histogram {
    std::vector<std::uint64_t> buckets;  // cumulative at render time; per-bucket here
    std::uint64_t count = 0;
    double sum = 0;
  };

  mutable std::mutex mu_;
  std::map<std::string, std::map<ports::MetricLabels, double>> counters_;
  std::map<std::string, std::map<ports::MetricLabels, double>> gauges_;
  std::map<std::string, std::map<ports::MetricLabels, Histogram>> histograms_;
  std::map<std::string, std::string> help_;
};

}  // namespace certsteward::adapters::metrics
