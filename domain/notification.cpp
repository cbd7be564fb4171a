// Wire names of delivery statuses.
#include <certsteward/domain/notification.hpp>

#include <certsteward/domain/enum_names.hpp>

namespace certsteward::domain {
namespace {

using P = std::pair<DeliveryStatus, std::string_view>;
constexpr auto kNames = makeEnumNames<DeliveryStatus>(
    P{DeliveryStatus::pending, "pending"}, P{DeliveryStatus::sent, "sent"},
    P{DeliveryStatus::dead, "dead"}, P{DeliveryStatus::held, "held"},
    P{DeliveryStatus::digested, "digested"});

}  // namespace

std::string_view nameOf(DeliveryStatus s) noexcept {
  return kNames.name(s);
}
std::optional<DeliveryStatus> parseDeliveryStatus(std::string_view text) noexcept {
  return kNames.parse(text);
}

}  // namespace certsteward::domain
