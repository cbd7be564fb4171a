#include <certsteward/services/catalog_service.hpp>

#include <certsteward/domain/catalog.hpp>

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
    case K::ca_failover:
      return "An order went on to the next CA of a certificate's issuer preference.";
    case K::policy_violation:
      return "A certificate is outside its project's policy: its renewal was stopped, or what "
             "the CA issued breaks a rule (the longest lifetime).";
    case K::policy_lifetime_exceeds_schedule:
      return "An issued certificate is valid for longer than CA/Browser Forum ballot SC-081 "
             "allows for the date it was issued.";
  }
  return {};
}

std::vector<std::string_view> views(const std::vector<std::string>& values) {
  return {values.begin(), values.end()};
}

}  // namespace

domain::Result<bool> CatalogService::configuresAProject(const Principal& who) const {
  const auto needed = ruleFor(Action::manage_project_config).project;
  if (!needed) return false;
  const auto orgWide = domain::effectiveProjectRole(who.user.org_role, std::nullopt);
  if (orgWide && domain::atLeast(*orgWide, *needed)) return true;
  auto memberships = access_.membershipsOf(who);
  if (!memberships) return memberships.error();
  for (const auto& m : *memberships) {
    const auto role = domain::effectiveProjectRole(who.user.org_role, m.role);
    if (role && domain::atLeast(*role, *needed)) return true;
  }
  return false;
}

std::vector<KindEntry> CatalogService::entries(const std::vector<domain::KindSpec>& specs,
                                               bool serverLists) const {
  std::vector<KindEntry> out;
  for (const auto& spec : specs) {
    KindEntry e{spec, true, {}};
    for (auto& field : e.spec.fields) {
      if (!serverLists) continue;
      if (field.values_from == "dns.exec_commands") {
        field.values = views(policy_.dns_exec_commands);
      } else if (field.values_from == "distribution.exec_commands") {
        field.values = views(policy_.distribution.exec_commands);
      }
    }
    out.push_back(std::move(e));
  }
  return out;
}

domain::Result<Catalog> CatalogService::describe(const Principal& who) const {
  if (auto allowed = access_.check(who, Action::read_license); !allowed) return allowed.error();
  const auto serverLists = configuresAProject(who);
  if (!serverLists) return serverLists.error();
  Catalog catalog;
  for (const domain::EventKind kind : domain::kEventKinds) {
    catalog.event_kinds.push_back({kind, summaryOf(kind), domain::isFailure(kind)});
  }
  catalog.dns_providers = entries(domain::dnsProviderSpecs(), *serverLists);
  catalog.distribution_modules = entries(domain::distributionModuleSpecs(), *serverLists);
  catalog.notification_channels = entries(domain::notificationChannelSpecs(), *serverLists);
  catalog.credential_kinds = entries(domain::credentialKindSpecs(), *serverLists);
  const auto actions = domain::auditActions();
  catalog.audit_actions.assign(actions.begin(), actions.end());
  // What the operator has not enabled is listed, unavailable, saying how to enable it.
  for (auto& e : catalog.dns_providers) {
    if (e.spec.name == "exec" && policy_.dns_exec_commands.empty()) {
      e.available = false;
      e.note = "no command is allowed: the operator sets dns.exec_commands";
    }
  }
  for (auto& e : catalog.distribution_modules) {
    if (e.spec.name == "file" && policy_.distribution.file_directories.empty()) {
      e.available = false;
      e.note = "no directory is allowed: the operator sets distribution.file_directories";
    }
  }
  return catalog;
}

}  // namespace certsteward::services
