// Event kinds that notification rules subscribe to (spec, Events).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "domain/id.hpp"
#include "domain/time.hpp"

namespace certsteward::domain {

enum class EventKind {
  job_failed,           // "job.failed": a job exhausted its attempts and went dead
  cert_expiring_soon,   // "cert.expiring_soon": a certificate is inside its expiry warning window
  cert_renewal_failed,  // "cert.renewal_failed": a renewal exhausted its attempts
  distribution_failed,  // "distribution.failed": a distribution ended failed or partial
};

// Every kind, in declaration order.
inline constexpr EventKind kEventKinds[] = {EventKind::job_failed, EventKind::cert_expiring_soon,
                                            EventKind::cert_renewal_failed,
                                            EventKind::distribution_failed};

std::string_view nameOf(EventKind kind) noexcept;
std::optional<EventKind> parseEventKind(std::string_view text) noexcept;

// One raised event, as recorded and handed to the Notifier port.
struct Event {
  Id id;
  EventKind kind = EventKind::job_failed;
  Id project_id;
  Id resource_id;  // the job, certificate or distribution the event is about
  std::string message;
  Timestamp at;
};

}  // namespace certsteward::domain
