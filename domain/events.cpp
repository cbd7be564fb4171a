// Wire names of event kinds.
#include "domain/events.hpp"

#include "domain/enum_names.hpp"

namespace certsteward::domain {
namespace {

using P = std::pair<EventKind, std::string_view>;
constexpr auto kNames = makeEnumNames<EventKind>(
    P{EventKind::job_failed, "job.failed"}, P{EventKind::cert_expiring_soon, "cert.expiring_soon"},
    P{EventKind::cert_renewal_failed, "cert.renewal_failed"},
    P{EventKind::distribution_failed, "distribution.failed"});

}  // namespace

std::string_view nameOf(EventKind kind) noexcept {
  return kNames.name(kind);
}
std::optional<EventKind> parseEventKind(std::string_view text) noexcept {
  return kNames.parse(text);
}

}  // namespace certsteward::domain
