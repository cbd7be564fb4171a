// Roles, their ranking, and the effective project role.
#include <doctest/doctest.h>

#include "domain/user.hpp"

using namespace certsteward::domain;

TEST_CASE("user: org roles rank owner > admin > operator > viewer") {
  const OrgRole ladder[] = {OrgRole::viewer, OrgRole::operator_, OrgRole::admin, OrgRole::owner};
  for (int have = 0; have < 4; ++have) {
    for (int need = 0; need < 4; ++need) {
      CAPTURE(have);
      CAPTURE(need);
      CHECK(atLeast(ladder[have], ladder[need]) == (have >= need));
    }
  }
  CHECK(atLeast(ProjectRole::admin, ProjectRole::operator_));
  CHECK_FALSE(atLeast(ProjectRole::viewer, ProjectRole::operator_));
}

TEST_CASE("user: the effective project role") {
  const struct {
    OrgRole org;
    std::optional<ProjectRole> membership;
    std::optional<ProjectRole> effective;
  } rows[] = {
      {OrgRole::owner, std::nullopt, ProjectRole::admin},
      {OrgRole::admin, std::nullopt, ProjectRole::admin},
      {OrgRole::admin, ProjectRole::viewer, ProjectRole::admin},
      {OrgRole::operator_, std::nullopt, std::nullopt},
      {OrgRole::operator_, ProjectRole::admin, ProjectRole::admin},
      {OrgRole::viewer, ProjectRole::operator_, ProjectRole::operator_},
      {OrgRole::viewer, std::nullopt, std::nullopt},
  };
  for (const auto& r : rows) {
    CHECK(effectiveProjectRole(r.org, r.membership) == r.effective);
  }
}

TEST_CASE("user: role names round-trip and unknown names are refused") {
  CHECK(std::string(nameOf(OrgRole::operator_)) == "operator");
  CHECK(parseOrgRole("owner") == OrgRole::owner);
  CHECK_FALSE(parseOrgRole("root"));
  CHECK_FALSE(parseOrgRole("Owner"));
  CHECK(parseProjectRole("admin") == ProjectRole::admin);
  CHECK_FALSE(parseProjectRole("owner"));  // not a project role
  CHECK(parseAuthSource("ldap") == AuthSource::ldap);
  CHECK_FALSE(parseAuthSource("saml"));
}

TEST_CASE("user: usernames and project names") {
  CHECK(isValidUsername("alice"));
  CHECK(isValidUsername("svc.renewer@example.com"));
  CHECK_FALSE(isValidUsername(""));
  CHECK_FALSE(isValidUsername("Alice"));
  CHECK_FALSE(isValidUsername("a b"));
  CHECK_FALSE(isValidUsername(std::string(65, 'a')));
  CHECK(isValidProjectName("Payments – prod"));
  CHECK_FALSE(isValidProjectName(""));
  CHECK_FALSE(isValidProjectName(" padded"));
  CHECK_FALSE(isValidProjectName("line\nbreak"));
  CHECK_FALSE(isValidProjectName(std::string(101, 'p')));
}
