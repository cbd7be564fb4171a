// Notifier: delivers raised events to the channels that rules select.
#pragma once

#include <memory>

#include <certsteward/domain/events.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

class Notifier {
 public:
  virtual ~Notifier() = default;

  /**
   * Records `event` and hands it to delivery. @return unavailable when it could not even be
   * recorded; delivery failures are retried by the notifier itself. Thread-safe.
   */
  virtual domain::Status notify(const domain::Event& event) = 0;
};

using NotifierPtr = std::unique_ptr<Notifier>;

}  // namespace certsteward::ports
