// RecordingNotifier: the Notifier port as far as this build goes — every raised event is kept in
// the store's EventLog (readable at GET /projects/<id>/events), logged, and counted for
// Prometheus. Delivery to notification channels reads from the same log when it arrives.
// Thread-safe.
#pragma once

#include "ports/event_log.hpp"
#include "ports/id_generator.hpp"
#include "ports/metrics.hpp"
#include "ports/notifier.hpp"

namespace certsteward::adapters::notify {

class RecordingNotifier : public ports::Notifier {
 public:
  RecordingNotifier(ports::EventLog& events, ports::IdGenerator& ids, ports::Metrics* metrics)
      : events_(events), ids_(ids), metrics_(metrics) {}

  domain::Status notify(const domain::Event& event) override;

 private:
  ports::EventLog& events_;
  ports::IdGenerator& ids_;
  ports::Metrics* metrics_;  // optional
};

}  // namespace certsteward::adapters::notify
