// Event kinds that notification rules subscribe to (docs/api.md, Events).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

enum class EventKind {
  job_failed,           // "job.failed": a job exhausted its attempts and went dead
  cert_expiring_soon,   // "cert.expiring_soon": a certificate is inside its expiry warning window
  cert_renewal_failed,  // "cert.renewal_failed": a renewal exhausted its attempts
  distribution_failed,  // "distribution.failed": a distribution ended failed or partial
  cert_issued,          // "cert.issued": a certificate was issued for the first time
  cert_renewed,         // "cert.renewed": a renewal stored a new version
  distribution_succeeded,  // "distribution.succeeded": every target holds the version
  ca_failover,             // "ca.failover": an order went on to the next CA of a certificate
  policy_violation,        // "policy.violation": a certificate is outside its project's policy
  // "policy.lifetime_exceeds_schedule": an issued certificate is valid for longer than
  // CA/Browser Forum ballot SC-081 allows for the date it was issued
  policy_lifetime_exceeds_schedule,
};

// Every kind, in declaration order.
inline constexpr EventKind kEventKinds[] = {EventKind::job_failed,
                                            EventKind::cert_expiring_soon,
                                            EventKind::cert_renewal_failed,
                                            EventKind::distribution_failed,
                                            EventKind::cert_issued,
                                            EventKind::cert_renewed,
                                            EventKind::distribution_succeeded,
                                            EventKind::ca_failover,
                                            EventKind::policy_violation,
                                            EventKind::policy_lifetime_exceeds_schedule};

// A failure kind (job.failed, cert.renewal_failed, distribution.failed), as opposed to news.
bool isFailure(EventKind kind) noexcept;
// The failure kinds an event of `kind` is the recovery from (cert.issued and cert.renewed end a
// certificate's failures, distribution.succeeded a distribution's); empty for other kinds.
std::vector<EventKind> recoveredBy(EventKind kind) noexcept;

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
  // What messages about it can name (template variables without the "event"/"message"/"at"
  // that come from the fields above): certificate.common_name, certificate.expires_at,
  // days_left, job.type, reason, ... Never a secret. Not kept in the event log.
  std::map<std::string, std::string> details = {};
  // What the event is about for "did it recover?": the certificate of a job or of a
  // distribution's delivery, else resource_id. Empty: resource_id.
  Id subject = {};
};

}  // namespace certsteward::domain
