// The catalog of pluggable kinds against the validators that use it: every described kind is
// accepted with its described fields (filled with their examples and defaults), refused without
// each required one, and refused with a setting the description lacks; a kind the description
// lacks is refused. So a form built from the catalog and the server cannot disagree.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <span>

#include <certsteward/domain/catalog.hpp>
#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/dns_settings.hpp>
#include <certsteward/domain/notification_settings.hpp>

using namespace certsteward::domain;

namespace {

// /var/www: the example webroot (HTTP-01) lies below it.
const DistributionPolicy kPolicy{{"/usr/local/bin/reload-proxy"}, {"/etc/ssl", "/var/www"}};
const std::vector<std::string> kDnsCommands{"/usr/local/bin/dns-hook"};

// The value a form would send for `f`: its example, else its default, else the first value the
// server offers.
std::string sample(const FieldSpec& f) {
  if (!f.example.empty()) return std::string(f.example);
  if (!f.default_value.empty()) return std::string(f.default_value);
  if (f.values_from == "dns.exec_commands") return kDnsCommands.front();
  if (f.values_from == "distribution.exec_commands") return kPolicy.exec_commands.front();
  if (!f.values.empty()) return std::string(f.values.front());
  return {};
}

// Every settings field with a sample value (`requiredOnly`: only the required ones).
Settings filled(const KindSpec& kind, bool requiredOnly) {
  Settings s;
  for (const auto& f : kind.fields) {
    if (f.place != FieldPlace::settings || (requiredOnly && !f.required)) continue;
    if (auto v = sample(f); !v.empty()) s[std::string(f.name)] = v;
  }
  return s;
}

// The module rule needs a certificate path besides the required key path.
Settings minimalModule(const KindSpec& kind) {
  auto s = filled(kind, true);
  if (kind.name == "ssh" || kind.name == "file") s["fullchain_path"] = "/etc/ssl/site-full.pem";
  return s;
}

Status checkKind(std::string_view family, const KindSpec& kind, const Settings& s) {
  if (family == "modules") return checkTargetSettings(kind.name, "t1", s, kPolicy);
  if (family == "channels") {
    NotificationChannel c;
    c.kind = std::string(kind.name);
    c.settings = s;
    return checkChannel(c, true);
  }
  DnsCredential d;
  d.provider = std::string(kind.name);
  d.settings = s;
  return checkDnsCredentialSettings(d, true, kDnsCommands);
}

struct Family {
  const char* name;
  const std::vector<KindSpec>& kinds;
};

}  // namespace

TEST_CASE("catalog: every field is described completely, with valid examples and defaults") {
  for (const auto& family : {&dnsProviderSpecs(), &distributionModuleSpecs(),
                             &notificationChannelSpecs(), &credentialKindSpecs()}) {
    std::set<std::string_view> kinds;
    for (const auto& kind : *family) {
      CAPTURE(kind.name);
      CHECK(kinds.insert(kind.name).second);
      CHECK_FALSE(kind.label.empty());
      CHECK_FALSE(kind.summary.empty());
      std::set<std::pair<std::string_view, FieldPlace>> names;
      for (const auto& f : kind.fields) {
        CAPTURE(f.name);
        CHECK(names.insert({f.name, f.place}).second);
        CHECK_FALSE(f.label.empty());
        if (f.type == FieldType::enumeration) CHECK((f.values.empty() != f.values_from.empty()));
        if (f.type == FieldType::integer) CHECK(f.min < f.max);
        if (f.type == FieldType::credential) CHECK_FALSE(f.credential_kinds.empty());
        if (f.type == FieldType::secret || f.type == FieldType::credential) {
          CHECK(f.place == FieldPlace::body);
        }
        for (const auto value : {f.example, f.default_value}) {
          if (!value.empty()) CHECK_MESSAGE(valueProblem(f, value).empty(), valueProblem(f, value));
        }
        for (const auto k : f.credential_kinds) {
          CHECK_MESSAGE(findKind(credentialKindSpecs(), k) != nullptr, k);
        }
      }
      if (family == &distributionModuleSpecs()) {
        for (const auto& f : kind.fields)
          CHECK_MESSAGE(f.scope != FieldScope::none, f.name);
      }
      if (family == &credentialKindSpecs()) {
        CHECK(findField(kind, "secret", FieldPlace::body) != nullptr);
      }
    }
  }
}

TEST_CASE("catalog: the validators accept each described kind and refuse what is not described") {
  const Family families[] = {{"modules", distributionModuleSpecs()},
                             {"channels", notificationChannelSpecs()},
                             {"dns", dnsProviderSpecs()}};
  for (const auto& family : families) {
    for (const auto& kind : family.kinds) {
      CAPTURE(family.name);
      CAPTURE(kind.name);
      const auto everything = filled(kind, false);
      const auto s = checkKind(family.name, kind, everything);
      CHECK_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
      const auto minimal =
          family.name == std::string("modules") ? minimalModule(kind) : filled(kind, true);
      const auto m = checkKind(family.name, kind, minimal);
      CHECK_MESSAGE(m.ok(), (m.ok() ? "" : m.error().message));

      // Without each required field: refused, naming it.
      for (const auto& f : kind.fields) {
        if (!f.required || f.place != FieldPlace::settings) continue;
        auto without = minimal;
        without.erase(std::string(f.name));
        const auto r = checkKind(family.name, kind, without);
        REQUIRE_FALSE(r.ok());
        CHECK(r.error().reason == kInvalidField);
        CHECK_MESSAGE(
            r.error().message.find(std::string(f.name) + " is required") != std::string::npos,
            r.error().message);
      }
      // A setting the description lacks: refused, naming it.
      auto extra = minimal;
      extra["undescribed"] = "x";
      const auto u = checkKind(family.name, kind, extra);
      REQUIRE_FALSE(u.ok());
      CHECK(u.error().message.find("undescribed is not a setting") != std::string::npos);
    }
  }
  // A kind the catalog does not describe is refused by each validator.
  KindSpec unknown{"gandi-livedns", "x", "x", {}};
  for (const char* family : {"modules", "channels", "dns"}) {
    CAPTURE(family);
    const auto r = checkKind(family, unknown, {});
    REQUIRE_FALSE(r.ok());
    CHECK(r.error().code == ErrorCode::invalid_argument);
  }
}

TEST_CASE("catalog: value checks per field type") {
  struct Row {
    FieldSpec field;
    const char* value;
    const char* problem;  // nullptr: valid
  };
  const Row rows[] = {
      {{.name = "n", .label = "n", .type = FieldType::integer, .min = 1, .max = 65535},
       "443",
       nullptr},
      {{.name = "n", .label = "n", .type = FieldType::integer, .min = 1, .max = 65535},
       "0",
       "must be 1..65535"},
      {{.name = "n", .label = "n", .type = FieldType::integer, .min = 1, .max = 65535},
       "4x",
       "must be 1..65535"},
      {{.name = "n", .label = "n", .type = FieldType::integer, .min = 0, .max = 10},
       "-1",
       "must be 0..10"},
      {{.name = "b", .label = "b", .type = FieldType::boolean}, "true", nullptr},
      {{.name = "b", .label = "b", .type = FieldType::boolean}, "yes", "true or false"},
      {{.name = "e", .label = "e", .type = FieldType::enumeration, .values = {"a", "b"}},
       "b",
       nullptr},
      {{.name = "e", .label = "e", .type = FieldType::enumeration, .values = {"a", "b"}},
       "c",
       "one of: a, b"},
      {{.name = "p", .label = "p", .type = FieldType::path}, "/etc/ssl/a.pem", nullptr},
      {{.name = "p", .label = "p", .type = FieldType::path}, "/etc/../shadow", "absolute path"},
      {{.name = "p", .label = "p", .type = FieldType::path}, "etc/a", "absolute path"},
      {{.name = "u", .label = "u", .type = FieldType::url}, "https://example.com/x", nullptr},
      {{.name = "u", .label = "u", .type = FieldType::url}, "http://127.0.0.1:8080/x", "https://"},
      {{.name = "u", .label = "u", .type = FieldType::url, .loopback_http = true},
       "http://127.0.0.1:8080/x",
       nullptr},
      {{.name = "h", .label = "h", .type = FieldType::host}, "-oProxyCommand=x", "host name"},
      {{.name = "h", .label = "h", .type = FieldType::host_port}, "ns1.example.com", "host:port"},
      {{.name = "h", .label = "h", .type = FieldType::host_port, .port_optional = true},
       "ns1.example.com",
       nullptr},
      {{.name = "h", .label = "h", .type = FieldType::host_port, .port_optional = true},
       "[::1]:5353",
       nullptr},
      {{.name = "l", .label = "l", .type = FieldType::host_port_list, .port_optional = true},
       "a.example, 127.0.0.1:53",
       nullptr},
      {{.name = "l", .label = "l", .type = FieldType::host_port_list, .port_optional = true},
       "a b",
       "comma"},
      {{.name = "m", .label = "m", .type = FieldType::email_list},
       "a@b.example, c@d.example",
       nullptr},
      {{.name = "m", .label = "m", .type = FieldType::email_list},
       "a@b.example, nobody",
       "invalid address"},
      {{.name = "x", .label = "x", .type = FieldType::headers}, "X-Team: a\nX-Env: b", nullptr},
      {{.name = "x", .label = "x", .type = FieldType::headers}, "Host: evil", "cannot set Host"},
      {{.name = "f", .label = "f", .type = FieldType::fingerprint}, "SHA256:abc", "ssh-keygen"},
      {{.name = "s", .label = "s", .type = FieldType::string}, "one\ntwo", "control characters"},
      {{.name = "t", .label = "t", .type = FieldType::text}, "one\ntwo", nullptr},
      {{.name = "s", .label = "s", .type = FieldType::string, .max_length = 3}, "four", "too long"},
      {{.name = "pem", .label = "pem", .type = FieldType::pem}, "not a certificate", "PEM"},
  };
  for (const auto& row : rows) {
    CAPTURE(nameOf(row.field.type));
    CAPTURE(row.value);
    const auto why = valueProblem(row.field, row.value);
    if (row.problem == nullptr) {
      CHECK_MESSAGE(why.empty(), why);
    } else {
      CHECK_MESSAGE(why.find(row.problem) != std::string::npos, why);
    }
  }
}

TEST_CASE("catalog: DNS credentials are checked when saved") {
  DnsCredential d;
  d.provider = "rfc2136";
  d.settings = {{"server", "127.0.0.1:5353"}, {"key_name", "certsteward-key"}};
  CHECK(checkDnsCredentialSettings(d, true, {}).ok());
  const auto noSecret = checkDnsCredentialSettings(d, false, {});
  REQUIRE_FALSE(noSecret.ok());
  CHECK(noSecret.error().references.at(0) == "secret");
  d.settings["key_name"] = "key name; drop";
  CHECK(checkDnsCredentialSettings(d, true, {}).error().references.at(0) == "settings.key_name");
  CHECK(checkDnsSecret(d, "c2VjcmV0").ok());
  const auto notBase64 = checkDnsSecret(d, "not base64!");
  REQUIRE_FALSE(notBase64.ok());
  CHECK(notBase64.error().message.find("not base64") == std::string::npos);  // never quoted

  DnsCredential e;
  e.provider = "exec";
  e.settings = {{"command", "/bin/sh"}};
  const auto notAllowed = checkDnsCredentialSettings(e, false, kDnsCommands);
  REQUIRE_FALSE(notAllowed.ok());
  CHECK(notAllowed.error().references.at(0) == "settings.command");
  CHECK(notAllowed.error().message.find("dns.exec_commands") != std::string::npos);
  e.settings["command"] = kDnsCommands.front();
  CHECK(checkDnsCredentialSettings(e, false, kDnsCommands).ok());  // its secret is optional
  e.settings["propagation_delay"] = "3601";
  CHECK(checkDnsCredentialSettings(e, false, kDnsCommands).error().message ==
        "settings.propagation_delay must be 0..3600");
  e.provider = "gandi-livedns";  // not a provider of this server
  CHECK(checkDnsCredentialSettings(e, false, kDnsCommands).error().reason == kMalformed);
}

namespace {

// A DNS credential's settings as a provider's form would send them, and what the check says.
struct DnsRow {
  const char* what;
  std::map<std::string, std::string> settings;
  bool secret;        // a secret is given
  const char* field;  // the one named in the 422; "" when it is accepted
};

void checkDnsRows(const char* provider, std::span<const DnsRow> rows) {
  for (const auto& row : rows) {
    CAPTURE(row.what);
    DnsCredential d;
    d.provider = provider;
    d.settings = row.settings;
    const auto checked = checkDnsCredentialSettings(d, row.secret, {});
    if (std::string(row.field).empty()) {
      CHECK_MESSAGE(checked.ok(), (checked.ok() ? std::string() : checked.error().message));
    } else {
      REQUIRE_FALSE(checked.ok());
      REQUIRE_FALSE(checked.error().references.empty());
      CHECK(checked.error().references.at(0) == row.field);
    }
  }
}

}  // namespace

TEST_CASE("catalog: a PowerDNS credential names the API's address only, and its checks") {
  const DnsRow rows[] = {
      {"complete",
       {{"api_url", "https://pdns.example.com:8081"}, {"check_servers", "ns1.example.com"}},
       true,
       ""},
      {"http to this machine",
       {{"api_url", "http://127.0.0.1:8081"}, {"check_servers", "127.0.0.1:5353"}},
       true,
       ""},
      {"a server id",
       {{"api_url", "https://pdns.example.com"},
        {"server_id", "pdns-1"},
        {"check_servers", "ns1.example.com"}},
       true,
       ""},
      {"no key",
       {{"api_url", "https://pdns.example.com:8081"}, {"check_servers", "ns1.example.com"}},
       false,
       "secret"},
      {"no address", {{"check_servers", "ns1.example.com"}}, true, "settings.api_url"},
      {"a path",
       {{"api_url", "https://pdns.example.com:8081/api/v1"}, {"check_servers", "ns1.example.com"}},
       true,
       "settings.api_url"},
      {"a user in it",
       {{"api_url", "https://admin@pdns.example.com"}, {"check_servers", "ns1.example.com"}},
       true,
       "settings.api_url"},
      {"plain http elsewhere",
       {{"api_url", "http://pdns.example.com:8081"}, {"check_servers", "ns1.example.com"}},
       true,
       "settings.api_url"},
      {"no servers named: the zone's NS records are asked",
       {{"api_url", "https://pdns.example.com:8081"}},
       true,
       ""},
      {"a malformed server",
       {{"api_url", "https://pdns.example.com:8081"}, {"check_servers", "ns1 example"}},
       true,
       "settings.check_servers"},
      {"a server id with a slash",
       {{"api_url", "https://pdns.example.com"},
        {"server_id", "../zones"},
        {"check_servers", "ns1.example.com"}},
       true,
       "settings.server_id"},
  };
  checkDnsRows("powerdns", rows);
}

TEST_CASE("catalog: a route53 credential's settings and secret, field by field") {
  const DnsRow rows[] = {
      {"a key id: the public zone found by name",
       {{"access_key_id", "AKIAIOSFODNN7EXAMPLE"}},
       true,
       ""},
      {"every setting",
       {{"access_key_id", "AKIAIOSFODNN7EXAMPLE"},
        {"hosted_zone_id", "Z1D633PJN98FT9"},
        {"private_zone", "true"},
        {"check_servers", "ns-1.awsdns-01.org"},
        {"region", "us-east-1"},
        {"api_url", "https://route53.amazonaws.com"}},
       true,
       ""},
      {"no key id", {}, true, "settings.access_key_id"},
      {"a key id in lower case",
       {{"access_key_id", "akiaiosfodnn7example"}},
       true,
       "settings.access_key_id"},
      {"a zone id with its path",
       {{"access_key_id", "AKIAIOSFODNN7EXAMPLE"}, {"hosted_zone_id", "/hostedzone/Z1"}},
       true,
       "settings.hosted_zone_id"},
      {"private_zone not a boolean",
       {{"access_key_id", "AKIAIOSFODNN7EXAMPLE"}, {"private_zone", "yes"}},
       true,
       "settings.private_zone"},
      {"a region with a slash",
       {{"access_key_id", "AKIAIOSFODNN7EXAMPLE"}, {"region", "us/east"}},
       true,
       "settings.region"},
      {"an API address with a path",
       {{"access_key_id", "AKIAIOSFODNN7EXAMPLE"},
        {"api_url", "https://route53.amazonaws.com/2013-04-01"}},
       true,
       "settings.api_url"},
      {"a role to assume",
       {{"access_key_id", "AKIAIOSFODNN7EXAMPLE"},
        {"role_arn", "arn:aws:iam::123456789012:role/certsteward-dns"},
        {"external_id", "tenant-42"}},
       true,
       ""},
      {"a role by name, not ARN",
       {{"access_key_id", "AKIAIOSFODNN7EXAMPLE"}, {"role_arn", "certsteward-dns"}},
       true,
       "settings.role_arn"},
      {"an STS address with a path",
       {{"access_key_id", "AKIAIOSFODNN7EXAMPLE"}, {"sts_url", "https://sts.amazonaws.com/x"}},
       true,
       "settings.sts_url"},
      {"no secret", {{"access_key_id", "AKIAIOSFODNN7EXAMPLE"}}, false, "secret"},
  };
  checkDnsRows("route53", rows);
  DnsCredential d;
  d.provider = "route53";
  CHECK(checkDnsSecret(d, "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY").ok());
  CHECK_FALSE(checkDnsSecret(d, "two words").ok());
}

TEST_CASE("catalog: a cloudflare credential's settings and token, field by field") {
  const DnsRow rows[] = {
      {"the defaults: found by name, its name servers asked", {}, true, ""},
      {"a zone id", {{"zone_id", "023e105f4ecef8ad9ca31a8372d0c353"}}, true, ""},
      {"a zone id that is a name", {{"zone_id", "example.com"}}, true, "settings.zone_id"},
      {"a zone id in capitals",
       {{"zone_id", "023E105F4ECEF8AD9CA31A8372D0C353"}},
       true,
       "settings.zone_id"},
      {"servers to ask",
       {{"check_servers", "ada.ns.cloudflare.com, bob.ns.cloudflare.com"}},
       true,
       ""},
      {"an API address with a query",
       {{"api_url", "https://api.example.com/v4?x=1"}},
       true,
       "settings.api_url"},
      {"plain http to another host",
       {{"api_url", "http://api.example.com/client/v4"}},
       true,
       "settings.api_url"},
      {"an unknown setting", {{"email", "a@example.com"}}, true, "settings.email"},
      {"no token", {}, false, "secret"},
  };
  checkDnsRows("cloudflare", rows);
  DnsCredential d;
  d.provider = "cloudflare";
  CHECK(checkDnsSecret(d, "abcDEF-123_xyz").ok());
  CHECK_FALSE(checkDnsSecret(d, "Bearer abc").ok());
  CHECK_FALSE(checkDnsSecret(d, "abc def").ok());
}
