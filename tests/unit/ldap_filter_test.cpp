// RFC 4515 escaping of usernames in LDAP filters (input is always a value, never syntax), the
// settings' url form, the mapping of directory groups to org roles, and what counts as a
// loopback host (where clear-text LDAP is allowed).
#include <doctest/doctest.h>

#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/ldap_filter.hpp>
#include <certsteward/domain/ldap_settings.hpp>
#include <certsteward/domain/network_names.hpp>

using certsteward::domain::escapeFilterValue;
using certsteward::domain::userFilter;

TEST_CASE("ldap filter: values are escaped per RFC 4515") {
  struct Row {
    std::string in;
    std::string out;
  };
  const Row rows[] = {
      {"alice", "alice"},
      {"*", "\\2a"},
      {"*)(uid=*", "\\2a\\29\\28uid=\\2a"},
      {"a\\b", "a\\5cb"},
      {std::string("nul\0x", 5), "nul\\00x"},
      {"jürgen", "jürgen"},  // UTF-8 stays as it is
      {"", ""},
      {"o'brien.smith@example.com", "o'brien.smith@example.com"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.in);
    CHECK(escapeFilterValue(row.in) == row.out);
  }
}

TEST_CASE("ldap filter: the template's {username} is replaced by the escaped name, everywhere") {
  CHECK(userFilter("(uid={username})", "alice") == "(uid=alice)");
  CHECK(userFilter("(uid={username})", "*)(uid=*") == "(uid=\\2a\\29\\28uid=\\2a)");
  CHECK(userFilter("(|(uid={username})(mail={username}))", "bob") == "(|(uid=bob)(mail=bob))");
  CHECK(userFilter("(objectClass=person)", "bob") == "(objectClass=person)");
  CHECK(userFilter("(cn={username}", "{username}") == "(cn={username}");  // no re-expansion
}

// ---- LDAP settings: the url form, and the group-to-role mapping ----

using certsteward::domain::applyLdapUrl;
using certsteward::domain::LdapSecurity;
using certsteward::domain::LdapSettings;
using certsteward::domain::mapDirectoryRole;
using certsteward::domain::OrgRole;

TEST_CASE("ldap settings: url gives host, port and security") {
  struct Row {
    const char* url;
    bool ok;
    const char* host;
    int port;
    LdapSecurity security;
  };
  const Row rows[] = {
      {"ldap://dc1.corp.test", true, "dc1.corp.test", 389, LdapSecurity::starttls},
      {"ldaps://dc1.corp.test", true, "dc1.corp.test", 636, LdapSecurity::ldaps},
      {"ldaps://dc1.corp.test:3269/", true, "dc1.corp.test", 3269, LdapSecurity::ldaps},
      {"ldap://127.0.0.1:10389", true, "127.0.0.1", 10389, LdapSecurity::starttls},
      {"ldap://[::1]:10389", true, "::1", 10389, LdapSecurity::starttls},
      {"http://dc1.corp.test", false, "", 0, LdapSecurity::none},
      {"ldap://dc1.corp.test:0", false, "", 0, LdapSecurity::none},
      {"ldap://dc1.corp.test/dc=corp", false, "", 0, LdapSecurity::none},
      {"ldap://user@dc1.corp.test", false, "", 0, LdapSecurity::none},
      {"ldap://", false, "", 0, LdapSecurity::none},
  };
  for (const auto& row : rows) {
    CAPTURE(row.url);
    LdapSettings s;
    const auto status = applyLdapUrl(row.url, s);
    REQUIRE(status.ok() == row.ok);
    if (!row.ok) {
      CHECK(status.error().references == std::vector<std::string>{"url"});
      continue;
    }
    CHECK(s.host == row.host);
    CHECK(s.port == row.port);
    CHECK(s.security == row.security);
  }
}

TEST_CASE("ldap settings: the highest mapped role wins, else the default, else refused") {
  LdapSettings s;
  s.group_mappings = {{"cn=ops,ou=groups,dc=x", OrgRole::operator_},
                      {"cn=admins,ou=groups,dc=x", OrgRole::admin},
                      {"cn=owners,ou=groups,dc=x", OrgRole::owner}};
  struct Row {
    std::vector<std::string> groups;
    std::optional<OrgRole> defaultRole;
    std::optional<OrgRole> expected;
  };
  const Row rows[] = {
      {{"cn=ops,ou=groups,dc=x"}, OrgRole::viewer, OrgRole::operator_},
      {{"cn=ops,ou=groups,dc=x", "cn=admins,ou=groups,dc=x"}, OrgRole::viewer, OrgRole::admin},
      {{"cn=admins,ou=groups,dc=x", "cn=ops,ou=groups,dc=x"}, OrgRole::viewer, OrgRole::admin},
      {{"CN=Owners, OU=Groups, DC=X"}, OrgRole::viewer, OrgRole::owner},  // DNs case-insensitive
      {{"cn = admins , ou=groups,dc=x "}, std::nullopt, OrgRole::admin},
      {{"cn=other,ou=groups,dc=x"}, OrgRole::viewer, OrgRole::viewer},
      {{}, OrgRole::operator_, OrgRole::operator_},
      {{"cn=other,ou=groups,dc=x"}, std::nullopt, std::nullopt},  // deny_without_group
      {{"cn=adminsx,ou=groups,dc=x"}, std::nullopt, std::nullopt},
  };
  for (const auto& row : rows) {
    CAPTURE(row.groups.size());
    s.default_org_role = row.defaultRole;
    CHECK(mapDirectoryRole(s, row.groups) == row.expected);
  }
}

TEST_CASE("network names: loopback means localhost, ::1 or a 127.x.y.z literal") {
  using certsteward::domain::isLoopback;
  for (const char* yes : {"localhost", "::1", "127.0.0.1", "127.1.2.3"}) {
    CAPTURE(yes);
    CHECK(isLoopback(yes));
  }
  for (const char* no : {"127.evil.example", "127.0.0.1.evil.example", "127.0.0", "127..0.1",
                         "128.0.0.1", "ldap.example.test", "", "127.0.0.1."}) {
    CAPTURE(no);
    CHECK_FALSE(isLoopback(no));
  }
}
