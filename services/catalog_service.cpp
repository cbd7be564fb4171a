#include <certsteward/services/catalog_service.hpp>

namespace certsteward::services {
namespace {

std::string summaryOf(domain::EventKind kind) {
  using K = domain::EventKind;
  switch (kind) {
    case K::job_failed:
      return "A job failed for good: its attempts are spent, or it cannot succeed.";
    case K::cert_expiring_soon:
      return "A certificate nears its expiry: at each of the rule's thresholds (30, 14, 7, 3 and 1 "
             "days unless set).";
    case K::cert_renewal_failed:
      return "A renewal used up its attempts: the certificate was not renewed.";
    case K::distribution_failed:
      return "A delivery to a distribution's targets failed or was partial.";
    case K::cert_issued:
      return "A certificate was issued for the first time.";
    case K::cert_renewed:
      return "A renewal stored a new version of a certificate.";
    case K::distribution_succeeded:
      return "Every target of a distribution holds the current version.";
  }
  return {};
}

}  // namespace

domain::Result<Catalog> CatalogService::describe(const Principal& who) const {
  if (auto allowed = access_.check(who, Action::read_license); !allowed) return allowed.error();
  Catalog catalog;
  for (const domain::EventKind kind : domain::kEventKinds) {
    catalog.event_kinds.push_back({kind, summaryOf(kind), domain::isFailure(kind)});
  }
  return catalog;
}

}  // namespace certsteward::services
