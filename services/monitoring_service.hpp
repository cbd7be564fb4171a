// MonitoringService: what an operator's monitoring reads of the whole service — whether it is
// ready (the store answers: GET /readyz) and the gauges GET /metrics computes at scrape time.
// It asks for no caller: the transport decides who may scrape. Thread-safe.
#pragma once

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/metrics.hpp>
#include <certsteward/ports/store.hpp>

namespace certsteward::services {

class MonitoringService {
 public:
  MonitoringService(ports::Store& store, const ports::Clock& clock)
      : store_(store), clock_(clock) {}

  // ok while the store answers; its error otherwise.
  domain::Status ready();

  // certsteward_ready (1 while the store answers, what ready() reports), and while it does:
  // certificates by status and jobs by type, lane and status (every combination, 0 included, so
  // alerts never meet an absent series), issued certificates expiring within 1, 7 and 30 days of
  // `now` (expired ones included) and already expired, and licence usage. The expiry counts take
  // one indexed count per window, whatever the number of projects.
  ports::MetricSamples gauges(domain::Timestamp now);
  ports::MetricSamples gauges() { return gauges(clock_.now()); }

 private:
  ports::Store& store_;
  const ports::Clock& clock_;
};

}  // namespace certsteward::services
