// CatalogService in process: the event kinds it lists are exactly the model's, each with a
// summary, for every member and no one else; every family of pluggable kinds, with the server's
// own lists filled in and what the operator has not enabled marked unavailable.
#include <doctest/doctest.h>

#include <set>

#include <certsteward/domain/catalog.hpp>
#include <certsteward/services/catalog_service.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

TEST_CASE("catalog: every event kind of the model, in its order, each with a summary") {
  testing::ServiceFixture fx;
  CatalogService catalog(fx.access);
  User viewer;
  viewer.id = "viewer-1";
  viewer.username = "viewer";
  viewer.org_role = OrgRole::viewer;
  const auto described = catalog.describe(Principal{viewer, "s"});
  REQUIRE(described.ok());
  REQUIRE(described->event_kinds.size() == std::size(kEventKinds));
  std::set<std::string> summaries;
  for (std::size_t i = 0; i < std::size(kEventKinds); ++i) {
    const auto& entry = described->event_kinds[i];
    CAPTURE(nameOf(entry.kind));
    CHECK(entry.kind == kEventKinds[i]);
    CHECK(entry.summary.size() > 20);
    CHECK(entry.failure == isFailure(entry.kind));
    summaries.insert(entry.summary);
  }
  CHECK(summaries.size() == std::size(kEventKinds));  // none copied from another

  viewer.disabled = true;  // a disabled account reads nothing: its identity no longer counts
  CHECK(catalog.describe(Principal{viewer, "s"}).error().code == ErrorCode::unauthenticated);
}

namespace {

const FieldSpec* fieldOf(const std::vector<KindEntry>& kinds, std::string_view kind,
                         std::string_view field) {
  for (const auto& k : kinds) {
    if (k.spec.name == kind) return findField(k.spec, field);
  }
  return nullptr;
}

bool availableOf(const std::vector<KindEntry>& kinds, std::string_view kind) {
  for (const auto& k : kinds) {
    if (k.spec.name == kind) return k.available;
  }
  return false;
}

}  // namespace

TEST_CASE("catalog: every family of the model, with the server's lists filled in") {
  testing::ServiceFixture fx;
  User viewer;
  viewer.id = "viewer-1";
  viewer.username = "viewer";
  viewer.org_role = OrgRole::viewer;

  SUBCASE("what the operator has not enabled is listed, unavailable, saying how") {
    CatalogService catalog(fx.access);
    const auto c = catalog.describe(Principal{viewer, "s"});
    REQUIRE(c.ok());
    CHECK(c->dns_providers.size() == dnsProviderSpecs().size());
    CHECK(c->distribution_modules.size() == distributionModuleSpecs().size());
    CHECK(c->notification_channels.size() == notificationChannelSpecs().size());
    CHECK(c->credential_kinds.size() == credentialKindSpecs().size());
    CHECK_FALSE(availableOf(c->dns_providers, "exec"));
    CHECK(availableOf(c->dns_providers, "rfc2136"));
    CHECK_FALSE(availableOf(c->distribution_modules, "file"));
    CHECK(availableOf(c->distribution_modules, "ssh"));
    for (const auto& k : c->dns_providers) {
      if (!k.available) CHECK(k.note.find("dns.exec_commands") != std::string::npos);
    }
    CHECK(fieldOf(c->dns_providers, "exec", "command")->values.empty());
  }
  SUBCASE("the allowed commands are the values of the fields that name them") {
    CatalogService catalog(fx.access, {{"/usr/local/bin/dns-hook", "/usr/local/bin/other"},
                                       {{"/usr/local/bin/reload-proxy"}, {"/srv/certs"}}});
    fx.project("p1");
    const auto c = catalog.describe(fx.member("p1", ProjectRole::admin));
    REQUIRE(c.ok());
    CHECK(availableOf(c->dns_providers, "exec"));
    CHECK(availableOf(c->distribution_modules, "file"));
    const auto* command = fieldOf(c->dns_providers, "exec", "command");
    REQUIRE(command != nullptr);
    CHECK(command->values ==
          std::vector<std::string_view>{"/usr/local/bin/dns-hook", "/usr/local/bin/other"});
    const auto* reload = fieldOf(c->distribution_modules, "file", "reload_command");
    REQUIRE(reload != nullptr);
    CHECK(reload->values == std::vector<std::string_view>{"/usr/local/bin/reload-proxy"});
    // The ssh module's reload command is a command on the target host: free text.
    CHECK(fieldOf(c->distribution_modules, "ssh", "reload_command")->type == FieldType::string);
  }
}

TEST_CASE("catalog: every audit action, once, each naming its resource type and what happened") {
  testing::ServiceFixture fx;
  CatalogService catalog(fx.access);
  const auto c = catalog.describe(fx.member("p-audit", ProjectRole::viewer));
  REQUIRE(c.ok());
  REQUIRE(c->audit_actions.size() == auditActions().size());
  std::set<std::string_view> names;
  for (const auto& a : c->audit_actions) {
    CAPTURE(a.action);
    CHECK(names.insert(a.action).second);
    CHECK_FALSE(a.resource_type.empty());
    CHECK(a.summary.size() > 8);
    CHECK(findAuditAction(a.action) != nullptr);
  }
  CHECK(findAuditAction("certificate.create")->resource_type == "certificate");
  CHECK(findAuditAction("certificate.frobnicate") == nullptr);
}

TEST_CASE("catalog: the service tests' audit log refuses an action the catalog does not list") {
  testing::ServiceFixture fx;
  const auto who = fx.owner();
  const auto refused =
      fx.audit.record(&who, fx.ctx(), "certificate.frobnicate", "certificate", "c");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("audit_catalog") != std::string::npos);
  CHECK(fx.audit.record(&who, fx.ctx(), "certificate.renew", "certificate", "c").ok());
}

TEST_CASE("catalog: the server's own paths only for those who can configure a project") {
  testing::ServiceFixture fx;
  CatalogService catalog(
      fx.access, {{"/usr/local/bin/dns-hook"}, {{"/usr/local/bin/reload-proxy"}, {"/srv/certs"}}});
  fx.project("p1");
  fx.project("p2");
  User orgAdmin;
  orgAdmin.id = "admin-1";
  orgAdmin.username = "admin";
  orgAdmin.org_role = OrgRole::admin;
  User viewer = orgAdmin;
  viewer.id = "viewer-1";
  viewer.org_role = OrgRole::viewer;
  User orgOperator = orgAdmin;
  orgOperator.id = "operator-1";
  orgOperator.org_role = OrgRole::operator_;
  const struct {
    const char* who;
    Principal principal;
    bool paths;
  } cases[] = {
      {"an org viewer in no project", Principal{viewer, "s"}, false},
      {"an org operator in no project", Principal{orgOperator, "s"}, false},
      {"a project viewer", fx.member("p1", ProjectRole::viewer), false},
      {"a project operator", fx.member("p1", ProjectRole::operator_), false},
      {"a project admin (of another project too)", fx.member("p2", ProjectRole::admin), true},
      {"an org admin", Principal{orgAdmin, "s"}, true},
      {"the owner", fx.owner(), true},
  };
  for (const auto& c : cases) {
    CAPTURE(c.who);
    const auto described = catalog.describe(c.principal);
    REQUIRE(described.ok());
    // Availability is the same for everyone: only the paths are held back.
    CHECK(availableOf(described->dns_providers, "exec"));
    const auto* command = fieldOf(described->dns_providers, "exec", "command");
    const auto* reload = fieldOf(described->distribution_modules, "file", "reload_command");
    REQUIRE(command != nullptr);
    REQUIRE(reload != nullptr);
    CHECK(command->values.empty() == !c.paths);
    CHECK(reload->values.empty() == !c.paths);
  }
}
