// The LDAP directory adapter against a real slapd started here on 127.0.0.1: users are found
// with the service account and bound with their password, their groups are read, a
// filter-injection username matches nobody, a wrong password and an unknown user are the same
// refusal, and a stopped directory is unavailable (not a refusal).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "adapters/ldap/ldap_directory.hpp"
#include "support/slapd_server.hpp"

using namespace certsteward;
using adapters::ldap::LdapDirectory;
using adapters::ldap::LdapDirectoryOptions;
using adapters::ldap::LdapSecurity;
using testing::SlapdServer;

namespace {

LdapDirectoryOptions options(const SlapdServer& slapd) {
  LdapDirectoryOptions o;
  o.host = "127.0.0.1";
  o.port = slapd.port();
  o.security = LdapSecurity::none;
  o.bind_dn = SlapdServer::kService;
  o.bind_password = SlapdServer::kServicePassword;
  o.base_dn = SlapdServer::kBase;
  o.user_filter = "(&(objectClass=inetOrgPerson)(uid={username}))";
  o.group_base_dn = SlapdServer::kGroups;
  o.timeout = std::chrono::seconds{3};
  return o;
}

}  // namespace

TEST_CASE("ldap directory: users bind with their password and come with their groups") {
  SlapdServer slapd;
  REQUIRE_MESSAGE(slapd.available(), slapd.reason());
  LdapDirectory directory{options(slapd)};
  CHECK(directory.test().ok());

  struct Row {
    const char* user;
    std::vector<std::string> groups;
  };
  const Row rows[] = {
      {"alice", {SlapdServer::kAdmins}},
      {"bob", {SlapdServer::kOperators}},
      {"carol", {SlapdServer::kAdmins, SlapdServer::kOperators}},
      {"dave", {}},
  };
  for (const auto& row : rows) {
    CAPTURE(row.user);
    auto user = directory.authenticate(row.user, std::string(row.user) + " password");
    REQUIRE_MESSAGE(user.ok(), user.error().message);
    CHECK(user->username == row.user);
    CHECK(user->distinguished_name == SlapdServer::dn(row.user));
    CHECK(user->email == std::string(row.user) + "@example.test");
    auto groups = user->groups;
    std::sort(groups.begin(), groups.end());
    CHECK(groups == row.groups);
  }
}

TEST_CASE("ldap directory: every wrong login is the same refusal, injection matches nobody") {
  SlapdServer slapd;
  REQUIRE_MESSAGE(slapd.available(), slapd.reason());
  LdapDirectory directory{options(slapd)};
  struct Row {
    const char* user;
    const char* password;
  };
  const Row rows[] = {
      {"alice", "wrong"},
      {"nobody", "nobody password"},
      {"alice", ""},            // an empty password would be an unauthenticated bind
      {"*", "alice password"},  // a pattern is a value, not syntax
      {"*)(uid=*", "alice password"},
      {"alice)(|(uid=*", "alice password"},
      {"", "x"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.user);
    auto refused = directory.authenticate(row.user, row.password);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::unauthenticated);
    CHECK(refused.error().message == "invalid username or password");
  }
  // A filter that finds several entries finds nobody.
  auto broad = options(slapd);
  broad.user_filter = "(objectClass=inetOrgPerson)";
  auto several = LdapDirectory{broad}.authenticate("alice", "alice password");
  REQUIRE_FALSE(several.ok());
  CHECK(several.error().code == domain::ErrorCode::unauthenticated);
}

TEST_CASE("ldap directory: an unreachable directory or a refused service account is unavailable") {
  SlapdServer slapd;
  REQUIRE_MESSAGE(slapd.available(), slapd.reason());
  auto wrongService = options(slapd);
  wrongService.bind_password = "not the service password";
  auto refusedService = LdapDirectory{wrongService}.authenticate("alice", "alice password");
  REQUIRE_FALSE(refusedService.ok());
  CHECK(refusedService.error().code == domain::ErrorCode::unavailable);
  CHECK_FALSE(LdapDirectory{wrongService}.test().ok());

  LdapDirectory directory{options(slapd)};
  slapd.stop();
  const auto started = std::chrono::steady_clock::now();
  auto down = directory.authenticate("alice", "alice password");
  REQUIRE_FALSE(down.ok());
  CHECK(down.error().code == domain::ErrorCode::unavailable);
  CHECK(down.error().reason == "DIRECTORY_UNREACHABLE");
  CHECK(down.error().message.find("unreachable") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds{5});
  CHECK(directory.test().error().code == domain::ErrorCode::unavailable);
  // Back up: logins work again.
  slapd.start();
  REQUIRE_MESSAGE(slapd.available(), slapd.reason());
  CHECK(directory.authenticate("alice", "alice password").ok());
}
