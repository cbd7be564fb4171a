// CAA as RFC 8659 and RFC 8657 say: the names climbed, issue values read, and the verdict for
// one CA, account and validation method, table-driven.
#include <doctest/doctest.h>

#include <certsteward/domain/caa.hpp>

using namespace certsteward::domain;

TEST_CASE("caa: the tree is climbed from the name (a wildcard from its base)") {
  CHECK(caaClimb("www.shop.example.com") ==
        std::vector<std::string>{"www.shop.example.com", "shop.example.com", "example.com", "com"});
  CHECK(caaClimb("*.example.com") == std::vector<std::string>{"example.com", "com"});
}

TEST_CASE("caa: issue values, with their parameters") {
  const auto plain = parseCaaIssueValue("letsencrypt.org");
  REQUIRE(plain);
  CHECK(plain->issuer == "letsencrypt.org");
  CHECK(plain->parameters.empty());
  const auto full = parseCaaIssueValue(
      " LetsEncrypt.org ; accounturi=https://acme.test/acct/1 ;"
      " validationmethods=dns-01,http-01");
  REQUIRE(full);
  CHECK(full->issuer == "letsencrypt.org");
  CHECK(full->parameters.at("accounturi") == "https://acme.test/acct/1");
  CHECK(full->parameters.at("validationmethods") == "dns-01,http-01");
  const auto none = parseCaaIssueValue(";");
  REQUIRE(none);
  CHECK(none->issuer.empty());
  CHECK_FALSE(parseCaaIssueValue("bad issuer!"));
  CHECK_FALSE(parseCaaIssueValue("ca.test; novalue"));
}

TEST_CASE("caa: the verdict for one CA, account and method") {
  const std::vector<std::string> us = {"ca.test", "ca-alias.test"};
  const auto set = [](std::vector<CaaRecord> records) {
    return CaaFinding{"example.com", records};
  };
  const struct {
    const char* what;
    const char* name;
    CaaFinding finding;
    const char* account;
    const char* method;
    bool allowed;
  } rows[] = {
      {"no CAA at all", "www.example.com", {}, "", "dns-01", true},
      {"our name", "www.example.com", set({{0, "issue", "ca.test"}}), "", "dns-01", true},
      {"our other name, upper case", "www.example.com", set({{0, "ISSUE", "CA-Alias.test"}}), "",
       "dns-01", true},
      {"another CA only", "www.example.com", set({{0, "issue", "other.test"}}), "", "dns-01",
       false},
      {"one of two CAs", "www.example.com",
       set({{0, "issue", "other.test"}, {0, "issue", "ca.test"}}), "", "dns-01", true},
      {"no CA at all (;)", "www.example.com", set({{0, "issue", ";"}}), "", "dns-01", false},
      {"only iodef: every CA", "www.example.com", set({{0, "iodef", "mailto:sec@example.com"}}), "",
       "dns-01", true},
      {"our account", "www.example.com", set({{0, "issue", "ca.test; accounturi=https://a/1"}}),
       "https://a/1", "dns-01", true},
      {"another account", "www.example.com", set({{0, "issue", "ca.test; accounturi=https://a/1"}}),
       "https://a/2", "dns-01", false},
      {"our method", "www.example.com",
       set({{0, "issue", "ca.test; validationmethods=http-01,dns-01"}}), "", "dns-01", true},
      {"another method", "www.example.com",
       set({{0, "issue", "ca.test; validationmethods=http-01"}}), "", "dns-01", false},
      {"a wildcard by issuewild", "*.example.com",
       set({{0, "issue", "other.test"}, {0, "issuewild", "ca.test"}}), "", "dns-01", true},
      {"a wildcard refused by issuewild", "*.example.com",
       set({{0, "issue", "ca.test"}, {0, "issuewild", ";"}}), "", "dns-01", false},
      {"a wildcard by issue when no issuewild", "*.example.com", set({{0, "issue", "ca.test"}}), "",
       "dns-01", true},
      {"issuewild does not judge other names", "www.example.com",
       set({{0, "issue", "ca.test"}, {0, "issuewild", ";"}}), "", "dns-01", true},
      {"a critical unknown tag", "www.example.com",
       set({{0, "issue", "ca.test"}, {128, "tbs", "x"}}), "", "dns-01", false},
      {"a non-critical unknown tag", "www.example.com",
       set({{0, "issue", "ca.test"}, {0, "tbs", "x"}}), "", "dns-01", true},
      {"a malformed record allows no CA", "www.example.com", set({{0, "issue", "ca.test;x"}}), "",
       "dns-01", false},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    const auto verdict = judgeCaa(row.name, row.finding, us, row.account, row.method);
    CHECK(verdict.allowed == row.allowed);
    if (!row.allowed) {
      CHECK(verdict.reason.find("CAA at example.com") != std::string::npos);
    } else {
      CHECK(verdict.reason.empty());
    }
  }
}
