// Roles, their ranking, and the effective project role.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include <certsteward/domain/name.hpp>
#include <certsteward/domain/user.hpp>

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

TEST_CASE("name: one rule for every name, table-driven") {
  struct Row {
    std::string name;
    bool valid;
    const char* why;
  };
  const std::vector<Row> rows{
      {"Payments – prod", true, "UTF-8 punctuation"},
      {"Zürich edge 🌍", true, "accents and a 4-byte character"},
      {std::string(100, 'p'), true, "100 characters"},
      {"lone\xa9"
       "continuation",
       false, "a continuation byte without a lead"},
      {"é" + std::string(99, 'x'), true, "100 characters, 101 bytes"},
      {std::string(101, 'p'), false, "101 characters"},
      {"", false, "empty"},
      {" padded", false, "leading space"},
      {"padded ", false, "trailing space"},
      {std::string("nul\0inside", 10), false, "NUL"},
      {"esc\x1b[31m", false, "ESC"},
      {"line\nbreak", false, "newline"},
      {"del\x7f", false, "DEL"},
      {"c1\xc2\x85", false, "C1 control (NEL)"},
      {"admin\xe2\x80\xae"
       "gnp.exe",
       false, "right-to-left override"},
      {"iso\xe2\x81\xa6late", false, "left-to-right isolate"},
      {"mark\xe2\x80\x8f", false, "right-to-left mark"},
      {"arabic\xd8\x9c", false, "Arabic letter mark"},
      {"\xef\xbb\xbf"
       "bom",
       false, "byte-order mark"},
      {"over\xc0\xaflong", false, "overlong encoding"},
      {"surrogate\xed\xa0\x80", false, "UTF-16 surrogate"},
      {"cut\xe2\x82", false, "truncated sequence"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.why);
    CHECK(certsteward::domain::isValidName(row.name) == row.valid);
    CHECK(isValidProjectName(row.name) == row.valid);
  }
}

TEST_CASE("profile: BCP 47 language tags, table-driven") {
  struct Row {
    const char* tag;
    bool wellFormed;
  };
  const Row rows[] = {
      {"en", true},
      {"de-CH", true},
      {"pt-BR", true},
      {"zh-Hant-TW", true},
      {"sr-Latn", true},
      {"es-419", true},
      {"de-CH-1996", true},
      {"sl-rozaj-biske", true},
      {"en-US-u-ca-gregory", true},
      {"x-private", true},
      {"en-x-mine", true},
      {"zh-yue-HK", true},
      {"", false},
      {"e", false},
      {"toolonglanguage", false},
      {"en_US", false},
      {"en-", false},
      {"-en", false},
      {"en--US", false},
      {"en-US-u", false},
      {"abcd", false},
      {"123", false},
      {"en US", false},
      {"en-x", false},
      {"de\xc3\xa9", false},
  };
  for (const auto& row : rows) {
    const std::string tag = row.tag;
    CAPTURE(tag);
    CHECK(isWellFormedLanguageTag(tag) == row.wellFormed);
  }
}
