// Events recorded, logged and counted.
#include "adapters/notify/recording_notifier.hpp"

#include <spdlog/spdlog.h>

namespace certsteward::adapters::notify {

domain::Status RecordingNotifier::notify(const domain::Event& event) {
  domain::Event recorded = event;
  if (recorded.id.empty()) recorded.id = ids_.next();
  const auto kind = domain::nameOf(recorded.kind);
  if (metrics_ != nullptr) {
    metrics_->increment("certsteward_events_total", {{"kind", std::string(kind)}});
  }
  auto stored = events_.record(recorded);
  if (!stored) {
    spdlog::error("event {} for {} could not be recorded: {}", kind, recorded.resource_id,
                  stored.error().message);
    return stored;
  }
  spdlog::info("event {} (project {}, {}): {}", kind, recorded.project_id, recorded.resource_id,
               recorded.message);
  return {};
}

}  // namespace certsteward::adapters::notify
