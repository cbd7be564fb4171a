// Wire names of event kinds.
#include <certsteward/domain/events.hpp>

#include <certsteward/domain/enum_names.hpp>

namespace certsteward::domain {
namespace {

using P = std::pair<EventKind, std::string_view>;
constexpr auto kNames = makeEnumNames<EventKind>(
    P{EventKind::job_failed, "job.failed"}, P{EventKind::cert_expiring_soon, "cert.expiring_soon"},
    P{EventKind::cert_renewal_failed, "cert.renewal_failed"},
    P{EventKind::distribution_failed, "distribution.failed"},
    P{EventKind::cert_issued, "cert.issued"}, P{EventKind::cert_renewed, "cert.renewed"},
    P{EventKind::distribution_succeeded, "distribution.succeeded"},
    P{EventKind::ca_failover, "ca.failover"}, P{EventKind::policy_violation, "policy.violation"},
    P{EventKind::policy_lifetime_exceeds_schedule, "policy.lifetime_exceeds_schedule"});

}  // namespace

std::string_view nameOf(EventKind kind) noexcept {
  return kNames.name(kind);
}
std::optional<EventKind> parseEventKind(std::string_view text) noexcept {
  return kNames.parse(text);
}

bool isFailure(EventKind kind) noexcept {
  return kind == EventKind::job_failed || kind == EventKind::cert_renewal_failed ||
         kind == EventKind::distribution_failed;
}

std::vector<EventKind> recoveredBy(EventKind kind) noexcept {
  switch (kind) {
    case EventKind::cert_issued:
    case EventKind::cert_renewed:
      return {EventKind::cert_renewal_failed, EventKind::job_failed};
    case EventKind::distribution_succeeded:
      return {EventKind::distribution_failed, EventKind::job_failed};
    default:
      return {};
  }
}

}  // namespace certsteward::domain
