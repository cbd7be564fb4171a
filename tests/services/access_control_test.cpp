// AccessControl in process over the memory store: the role matrix as docs/api.md
// state it (hand-written rows), and its properties over every action and role — a higher role
// never loses an access, a project that does not exist is 404 for everyone, a disabled user is
// refused everything.
#include <doctest/doctest.h>

#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

struct AccessFixture : testing::ServiceFixture {
  AccessFixture() { project("p1"); }
  // A user with `org` and, when set, `role` in p1.
  Principal user(OrgRole org, std::optional<ProjectRole> role) {
    User u;
    u.id = ids.next();
    u.username = "u-" + u.id;
    u.org_role = org;
    REQUIRE(store.users().create(u).ok());
    if (role) REQUIRE(store.memberships().put(Membership{"p1", u.id, *role, clock.now()}).ok());
    return Principal{u, "s"};
  }
  std::optional<ErrorCode> outcome(const Principal& who, Action action) {
    const auto rule = ruleFor(action);
    const Status s =
        rule.project || action == Action::update_project || action == Action::manage_members
            ? access.check(who, action, "p1")
            : access.check(who, action);
    if (s) return std::nullopt;
    return s.error().code;
  }
};

constexpr auto kDenied = ErrorCode::permission_denied;
constexpr auto kHidden = ErrorCode::not_found;

}  // namespace

TEST_CASE("access: the role matrix, row by row") {
  AccessFixture fx;
  using O = OrgRole;
  using P = ProjectRole;
  const struct {
    const char* name;
    O org;
    std::optional<P> role;
    Action action;
    std::optional<ErrorCode> expected;  // nullopt: allowed
  } rows[] = {
      {"an org viewer lists projects", O::viewer, std::nullopt, Action::list_projects,
       std::nullopt},
      {"an org operator cannot create projects", O::operator_, std::nullopt, Action::create_project,
       kDenied},
      {"an org admin creates projects", O::admin, std::nullopt, Action::create_project,
       std::nullopt},
      {"an org admin cannot verify the audit log", O::admin, std::nullopt, Action::verify_audit_log,
       kDenied},
      {"the owner verifies the audit log", O::owner, std::nullopt, Action::verify_audit_log,
       std::nullopt},
      {"an org admin reads the audit log", O::admin, std::nullopt, Action::read_audit_log,
       std::nullopt},
      {"an org operator cannot read the audit log", O::operator_, std::nullopt,
       Action::read_audit_log, kDenied},
      {"only the owner manages settings", O::admin, std::nullopt, Action::manage_settings, kDenied},
      {"an org admin manages the CA providers", O::admin, std::nullopt, Action::manage_ca_providers,
       std::nullopt},
      {"an org operator cannot manage the CA providers", O::operator_, std::nullopt,
       Action::manage_ca_providers, kDenied},
      {"only the owner activates a licence", O::admin, std::nullopt, Action::activate_license,
       kDenied},
      {"a non-member does not see the project", O::operator_, std::nullopt, Action::read_project,
       kHidden},
      {"a project viewer reads it", O::viewer, P::viewer, Action::read_project, std::nullopt},
      {"a project viewer cannot write certificates", O::viewer, P::viewer,
       Action::write_certificates, kDenied},
      {"a project operator writes certificates", O::viewer, P::operator_,
       Action::write_certificates, std::nullopt},
      {"a project operator cancels jobs", O::viewer, P::operator_, Action::cancel_job,
       std::nullopt},
      {"a project operator cannot retry jobs", O::viewer, P::operator_, Action::retry_job, kDenied},
      {"a project admin retries jobs", O::viewer, P::admin, Action::retry_job, std::nullopt},
      {"a project operator cannot export keys", O::viewer, P::operator_, Action::export_private_key,
       kDenied},
      {"a project admin manages the project's configuration", O::viewer, P::admin,
       Action::manage_project_config, std::nullopt},
      {"an org admin is project admin everywhere", O::admin, std::nullopt,
       Action::manage_project_config, std::nullopt},
      {"an org admin deletes certificates without a membership", O::admin, std::nullopt,
       Action::delete_certificates, std::nullopt},
      {"a project admin manages its members", O::viewer, P::admin, Action::manage_members,
       std::nullopt},
      {"a project operator cannot manage members", O::viewer, P::operator_, Action::manage_members,
       kDenied},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    CHECK(fx.outcome(fx.user(row.org, row.role), row.action) == row.expected);
  }
}

TEST_CASE("access: a higher role never loses an access, for every action") {
  AccessFixture fx;
  const OrgRole orgs[] = {OrgRole::viewer, OrgRole::operator_, OrgRole::admin, OrgRole::owner};
  const std::optional<ProjectRole> roles[] = {std::nullopt, ProjectRole::viewer,
                                              ProjectRole::operator_, ProjectRole::admin};
  for (const auto& rule : accessRules()) {
    CAPTURE(rule.name);
    bool allowedBefore = false;
    for (const auto org : orgs) {  // the org ladder, no membership
      const bool allowed = !fx.outcome(fx.user(org, std::nullopt), rule.action).has_value();
      CHECK((allowed || !allowedBefore));
      allowedBefore = allowed;
    }
    if (!rule.project) continue;
    allowedBefore = false;
    for (const auto& role : roles) {  // the project ladder for an org viewer
      const bool allowed = !fx.outcome(fx.user(OrgRole::viewer, role), rule.action).has_value();
      CHECK((allowed || !allowedBefore));
      allowedBefore = allowed;
    }
    CHECK_FALSE(fx.outcome(fx.user(OrgRole::admin, std::nullopt), rule.action).has_value());
  }
}

TEST_CASE("access: a project that does not exist is 404 for every role, a disabled user 401") {
  AccessFixture fx;
  auto owner = fx.user(OrgRole::owner, std::nullopt);
  for (const auto& rule : accessRules()) {
    if (!rule.project) continue;
    CAPTURE(rule.name);
    const auto s = fx.access.check(owner, rule.action, "0123456789abcdef0123ffff");
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::not_found);
  }
  owner.user.disabled = true;
  for (const auto& rule : accessRules()) {
    CAPTURE(rule.name);
    const auto s = rule.project ? fx.access.check(owner, rule.action, "p1")
                                : fx.access.check(owner, rule.action);
    REQUIRE_FALSE(s.ok());
    CHECK(s.error().code == ErrorCode::unauthenticated);
  }
}
