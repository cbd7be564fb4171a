// LdapSettingsService in process, over the memory store's settings through the typed settings
// document: owner only, fields checked, the service password sealed and kept when a change
// omits it, and no change without its audit entry.
#include <doctest/doctest.h>

#include <certsteward/adapters/store/codec/settings_documents.hpp>
#include <certsteward/services/ldap_settings_service.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

struct LdapFixture : testing::ServiceFixture {
  adapters::codec::LdapSettingsDocument repo{store.settings(), clock};
  LdapSettingsService ldap{{repo, secrets}, work, access, audit};
  std::optional<LdapSettings> stored() { return *repo.get(); }

  LdapSettings settings() {
    LdapSettings s;
    s.host = "ldap.example.test";
    s.base_dn = "dc=example,dc=test";
    s.bind_dn = "cn=svc,dc=example,dc=test";
    return s;
  }
};

}  // namespace

TEST_CASE("ldap settings: defaults until saved, the password sealed and never shown") {
  LdapFixture fx;
  auto initial = fx.ldap.get(fx.owner());
  REQUIRE(initial.ok());
  CHECK(initial->settings.port == 389);
  CHECK(initial->settings.user_filter == "(uid={username})");
  CHECK_FALSE(initial->secret_configured);

  auto saved = fx.ldap.put(fx.owner(), fx.ctx(), fx.settings(), std::string("BIND-SECRET"));
  REQUIRE(saved.ok());
  CHECK(saved->secret_configured);
  CHECK(saved->settings.bind_password_sealed.empty());
  REQUIRE(fx.stored().has_value());
  CHECK(fx.stored()->bind_password_sealed.starts_with("v1:"));
  CHECK(fx.stored()->bind_password_sealed.find("BIND-SECRET") == std::string::npos);
  CHECK(*fx.secrets.open(fx.stored()->bind_password_sealed) == "BIND-SECRET");
  CHECK(fx.audited("settings.ldap.update").size() == 1);

  // A change without a password keeps the sealed one.
  auto changed = fx.settings();
  changed.base_dn = "ou=people,dc=example,dc=test";
  auto kept = fx.ldap.put(fx.owner(), fx.ctx(), changed, std::nullopt);
  REQUIRE(kept.ok());
  CHECK(kept->secret_configured);
  CHECK(fx.stored()->base_dn == "ou=people,dc=example,dc=test");
  CHECK(*fx.secrets.open(fx.stored()->bind_password_sealed) == "BIND-SECRET");
}

TEST_CASE("ldap settings: only the org owner reads or changes them") {
  LdapFixture fx;
  User admin;
  admin.id = "admin-1";
  admin.username = "admin";
  admin.org_role = OrgRole::admin;
  const Principal who{admin, "s"};
  CHECK(fx.ldap.authorizeChange(who).error().code == ErrorCode::permission_denied);
  CHECK(fx.ldap.authorizeChange(fx.owner()).ok());
  CHECK(fx.ldap.get(who).error().code == ErrorCode::permission_denied);
  CHECK(fx.ldap.put(who, fx.ctx(), fx.settings(), std::nullopt).error().code ==
        ErrorCode::permission_denied);
  CHECK_FALSE(fx.stored().has_value());
}

TEST_CASE("ldap settings: every broken rule is refused, naming the field, and nothing is saved") {
  LdapFixture fx;
  const struct {
    const char* field;
    void (*change)(LdapSettings&);
  } rows[] = {
      {"host", [](LdapSettings& s) { s.host.clear(); }},
      {"host", [](LdapSettings& s) { s.host = std::string(254, 'h'); }},
      {"base_dn", [](LdapSettings& s) { s.base_dn.clear(); }},
      {"port", [](LdapSettings& s) { s.port = 0; }},
      {"port", [](LdapSettings& s) { s.port = 70000; }},
      {"bind_dn", [](LdapSettings& s) { s.bind_dn = std::string(1001, 'b'); }},
      {"user_filter", [](LdapSettings& s) { s.user_filter = std::string(1001, 'f'); }},
      {"user_filter", [](LdapSettings& s) { s.user_filter = "(uid=alice)"; }},
      {"user_filter", [](LdapSettings& s) { s.user_filter = "uid={username}"; }},
      {"user_filter", [](LdapSettings& s) { s.user_filter = "(uid={username}))("; }},
      {"user_filter", [](LdapSettings& s) { s.user_filter = "(uid={username})(cn=x)"; }},
      {"host", [](LdapSettings& s) { s.host = "ldap://ldap.example.test"; }},
      {"security", [](LdapSettings& s) { s.security = LdapSecurity::none; }},
      {"ca_bundle", [](LdapSettings& s) { s.ca_bundle = "not a certificate"; }},
      {"ca_bundle",
       [](LdapSettings& s) {
         s.ca_bundle = "-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n";
       }},
      {"username_attribute", [](LdapSettings& s) { s.username_attribute = "uid)(x"; }},
      {"email_attribute", [](LdapSettings& s) { s.email_attribute = "mail*"; }},
      {"member_attribute", [](LdapSettings& s) { s.member_attribute.clear(); }},
      {"group_filter", [](LdapSettings& s) { s.group_filter = "objectClass=group"; }},
      {"group_mappings",
       [](LdapSettings& s) {
         s.group_base_dn = "ou=groups,dc=example,dc=test";
         s.group_mappings = {{"", OrgRole::admin}};
       }},
      {"group_base_dn",
       [](LdapSettings& s) {
         s.group_mappings = {{"cn=a,dc=b", OrgRole::admin}};
       }},
      {"default_org_role", [](LdapSettings& s) { s.default_org_role = OrgRole::owner; }},
      {"connect_timeout_seconds", [](LdapSettings& s) { s.connect_timeout_seconds = 0; }},
      {"operation_timeout_seconds", [](LdapSettings& s) { s.operation_timeout_seconds = 61; }},
  };
  for (const auto& row : rows) {
    CAPTURE(row.field);
    auto s = fx.settings();
    row.change(s);
    auto refused = fx.ldap.put(fx.owner(), fx.ctx(), s, std::nullopt);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::invalid_argument);
    CHECK(refused.error().message.find(row.field) == 0);
    REQUIRE(refused.error().references.size() == 1);
    CHECK(refused.error().references[0] == row.field);
  }
  CHECK_FALSE(fx.stored().has_value());
  CHECK(fx.audited("settings.ldap.update").empty());
}

TEST_CASE("ldap settings: a change whose audit entry cannot be written is not saved") {
  LdapFixture fx;
  fx.auditLog.failing = true;
  auto refused = fx.ldap.put(fx.owner(), fx.ctx(), fx.settings(), std::string("pw"));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::unavailable);
  CHECK_FALSE(fx.stored().has_value());
}

TEST_CASE("ldap settings: the saved password never goes to another server or account") {
  LdapFixture fx;
  REQUIRE(fx.ldap.put(fx.owner(), fx.ctx(), fx.settings(), std::string("BIND-SECRET")).ok());
  const struct {
    const char* what;
    void (*change)(LdapSettings&);
  } rows[] = {
      {"host", [](LdapSettings& s) { s.host = "elsewhere.example.test"; }},
      {"port", [](LdapSettings& s) { s.port = 10389; }},
      {"security", [](LdapSettings& s) { s.security = LdapSecurity::ldaps; }},
      {"bind_dn", [](LdapSettings& s) { s.bind_dn = "cn=other,dc=example,dc=test"; }},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    auto s = fx.settings();
    row.change(s);
    auto refused = fx.ldap.put(fx.owner(), fx.ctx(), s, std::nullopt);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().references == std::vector<std::string>{"bind_password"});
    CHECK(fx.stored()->host == "ldap.example.test");
    // With the password typed again the change is saved.
    CHECK(fx.ldap.put(fx.owner(), fx.ctx(), s, std::string("BIND-SECRET")).ok());
    REQUIRE(fx.ldap.put(fx.owner(), fx.ctx(), fx.settings(), std::string("BIND-SECRET")).ok());
  }
  // A bind_dn without any password would bind anonymously.
  auto anonymous = fx.settings();
  auto removed = fx.ldap.put(fx.owner(), fx.ctx(), anonymous, std::string(""));
  REQUIRE_FALSE(removed.ok());
  CHECK(removed.error().references == std::vector<std::string>{"bind_password"});
  anonymous.bind_dn.clear();
  CHECK(fx.ldap.put(fx.owner(), fx.ctx(), anonymous, std::string("")).ok());
  CHECK(fx.stored()->bind_password_sealed.empty());
}
