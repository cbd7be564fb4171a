// The LDAP directory adapter against a real slapd started here on 127.0.0.1 — in clear text,
// with STARTTLS and with LDAPS, each with a certificate from a throw-away CA — through the
// Directory contract (which the FakeDirectory passes too), then what only a real directory
// shows: an ambiguous filter finds nobody, the entry's username attribute names the user, a
// refused service account or an untrusted certificate is unavailable at the right step, and a
// stopped directory answers quickly and comes back.
#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <vector>

#include <certsteward/adapters/ldap/ldap_directory.hpp>
#include <certsteward/testing/fake_directory.hpp>
#include "support/slapd_server.hpp"

using namespace certsteward;
using adapters::ldap::LdapDirectory;
using domain::LdapSecurity;
using domain::LdapSettings;
using testing::SlapdServer;

namespace {

LdapSettings settingsFor(const SlapdServer& slapd, LdapSecurity security) {
  LdapSettings s;
  s.host = "127.0.0.1";
  s.security = security;
  s.port = security == LdapSecurity::ldaps ? slapd.ldapsPort() : slapd.port();
  s.ca_bundle = slapd.caPem();
  s.bind_dn = SlapdServer::kService;
  s.base_dn = SlapdServer::kBase;
  s.user_filter = "(&(objectClass=inetOrgPerson)(uid={username}))";
  s.group_base_dn = SlapdServer::kGroups;
  s.connect_timeout_seconds = 3;
  s.operation_timeout_seconds = 3;
  return s;
}

template <LdapSecurity Security>
struct SlapdHarness {
  SlapdServer slapd{Security != LdapSecurity::none};
  LdapDirectory adapter;
  LdapSettings settings = settingsFor(slapd, Security);
  bool available() const { return slapd.available(); }
  std::string reason() const { return slapd.reason(); }
  ports::Directory& directory() { return adapter; }
  ports::DirectoryAccess access() const { return {settings, SlapdServer::kServicePassword}; }
  std::string admins() const { return SlapdServer::kAdmins; }
  std::string operators() const { return SlapdServer::kOperators; }
  void stop() { slapd.stop(); }
};

struct FakeHarness {
  testing::FakeDirectory fake;
  LdapSettings settings;
  FakeHarness() {
    settings.host = "ldap.example.test";
    settings.base_dn = SlapdServer::kBase;
    settings.group_base_dn = SlapdServer::kGroups;
    fake.person("alice", "alice password", {SlapdServer::kAdmins});
    fake.person("bob", "bob password", {SlapdServer::kOperators});
    fake.person("carol", "carol password", {SlapdServer::kAdmins, SlapdServer::kOperators});
    fake.person("dave", "dave password", {});
  }
  bool available() const { return true; }
  std::string reason() const { return {}; }
  ports::Directory& directory() { return fake; }
  ports::DirectoryAccess access() const { return {settings, "service secret"}; }
  std::string admins() const { return SlapdServer::kAdmins; }
  std::string operators() const { return SlapdServer::kOperators; }
  void stop() { fake.setReachable(false); }
};

using ClearText = SlapdHarness<LdapSecurity::none>;
using StartTls = SlapdHarness<LdapSecurity::starttls>;
using Ldaps = SlapdHarness<LdapSecurity::ldaps>;

}  // namespace

#define CERTSTEWARD_DIRECTORY_HARNESSES FakeHarness, ClearText, StartTls, Ldaps
#include <certsteward/testing/contract/directory_contract.hpp>

TEST_CASE("ldap directory: an ambiguous filter finds nobody, the entry names the user") {
  SlapdServer slapd;
  REQUIRE_MESSAGE(slapd.available(), slapd.reason());
  LdapDirectory directory;
  auto broad = settingsFor(slapd, LdapSecurity::none);
  broad.user_filter = "(|(objectClass=inetOrgPerson)(uid={username}))";
  auto several =
      directory.authenticate({broad, SlapdServer::kServicePassword}, "alice", "alice password");
  REQUIRE_FALSE(several.ok());
  CHECK(several.error().code == domain::ErrorCode::unauthenticated);

  // uid matches case-insensitively; the user is named as the directory writes it.
  const auto s = settingsFor(slapd, LdapSecurity::none);
  auto upper =
      directory.authenticate({s, SlapdServer::kServicePassword}, "ALICE", "alice password");
  REQUIRE_MESSAGE(upper.ok(), upper.error().message);
  CHECK(upper->username == "alice");

  // Without group_base_dn no groups are read.
  auto noGroups = s;
  noGroups.group_base_dn.clear();
  auto carol =
      directory.authenticate({noGroups, SlapdServer::kServicePassword}, "carol", "carol password");
  REQUIRE(carol.ok());
  CHECK(carol->groups.empty());

  // A base_dn that does not exist is the directory's problem, not the user's.
  auto missing = s;
  missing.base_dn = "ou=nowhere,dc=example,dc=test";
  auto lost =
      directory.authenticate({missing, SlapdServer::kServicePassword}, "alice", "alice password");
  REQUIRE_FALSE(lost.ok());
  CHECK(lost.error().code == domain::ErrorCode::unavailable);
  const auto steps = directory.test({missing, SlapdServer::kServicePassword});
  REQUIRE_FALSE(steps.empty());
  CHECK(steps.back().step == "search");
  CHECK_FALSE(steps.back().ok);
}

TEST_CASE("ldap directory: a refused service account fails at the bind step") {
  SlapdServer slapd;
  REQUIRE_MESSAGE(slapd.available(), slapd.reason());
  LdapDirectory directory;
  const auto s = settingsFor(slapd, LdapSecurity::none);
  auto refused = directory.authenticate({s, "not the service password"}, "alice", "alice password");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::unavailable);
  CHECK(refused.error().reason == "DIRECTORY_ERROR");
  const auto steps = directory.test({s, "not the service password"});
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].ok);
  CHECK(steps[1].step == "bind");
  CHECK_FALSE(steps[1].ok);
  CHECK(steps[1].message.find("bind_password") != std::string::npos);
}

TEST_CASE("ldap directory: a certificate the CA bundle does not sign fails at the TLS step") {
  SlapdServer slapd{true};
  REQUIRE_MESSAGE(slapd.available(), slapd.reason());
  const auto other = testing::makeTestMaterial("elsewhere").chain_pem;  // another CA
  LdapDirectory directory;
  for (const auto security : {LdapSecurity::starttls, LdapSecurity::ldaps}) {
    CAPTURE(static_cast<int>(security));
    auto s = settingsFor(slapd, security);
    s.ca_bundle = other;
    auto refused =
        directory.authenticate({s, SlapdServer::kServicePassword}, "alice", "alice password");
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::unavailable);
    CHECK(refused.error().reason == "DIRECTORY_ERROR");  // reached, but not trusted
    const auto steps = directory.test({s, SlapdServer::kServicePassword});
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].step == "connect");
    CHECK(steps[0].ok);
    CHECK(steps[1].step == "tls");
    CHECK_FALSE(steps[1].ok);
    // The right CA: TLS, with its version in the message.
    s.ca_bundle = slapd.caPem();
    const auto good = directory.test({s, SlapdServer::kServicePassword});
    REQUIRE(good.size() == 4);
    CHECK(good[1].ok);
    CHECK(good[1].message.find("TLS") != std::string::npos);
  }
  // A certificate for 127.0.0.1 does not do for another name of the same host.
  for (const auto security : {LdapSecurity::starttls, LdapSecurity::ldaps}) {
    auto s = settingsFor(slapd, security);
    s.host = "localhost";
    const auto steps = directory.test({s, SlapdServer::kServicePassword});
    REQUIRE(steps.size() == 2);
    CHECK(steps[0].ok);  // reached...
    CHECK(steps[1].step == "tls");
    CHECK_FALSE(steps[1].ok);  // ...but the name is not the certificate's
  }
}

TEST_CASE("ldap directory: a stopped directory answers quickly and comes back") {
  SlapdServer slapd;
  REQUIRE_MESSAGE(slapd.available(), slapd.reason());
  LdapDirectory directory;
  const auto s = settingsFor(slapd, LdapSecurity::none);
  slapd.stop();
  const auto started = std::chrono::steady_clock::now();
  auto down = directory.authenticate({s, SlapdServer::kServicePassword}, "alice", "alice password");
  REQUIRE_FALSE(down.ok());
  CHECK(down.error().reason == "DIRECTORY_UNREACHABLE");
  CHECK(down.error().message.find("unreachable") != std::string::npos);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds{5});
  slapd.start();
  REQUIRE_MESSAGE(slapd.available(), slapd.reason());
  CHECK(directory.authenticate({s, SlapdServer::kServicePassword}, "alice", "alice password").ok());
}
