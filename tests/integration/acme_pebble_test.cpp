// The ACME issuer against a real Pebble, validating DNS-01 through a real bind9 updated with
// RFC 2136 + TSIG; both started by the test on 127.0.0.1.
#include <doctest/doctest.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <boost/json.hpp>

#include <fstream>
#include <map>
#include <memory>
#include <mutex>

#include <certsteward/adapters/acme/acme_crypto.hpp>
#include <certsteward/adapters/acme/acme_issuer.hpp>
#include <certsteward/adapters/acme/ari.hpp>
#include <certsteward/adapters/crypto/ed25519_license_verifier.hpp>
#include <certsteward/domain/encoding.hpp>
#include "integration/acme_fixture.hpp"
#include "support/chain_verify.hpp"
#include "support/http_stub.hpp"
#include "support/outbound.hpp"

using namespace certsteward;
using namespace std::chrono_literals;
using adapters::acme::AcmeIssuer;
using adapters::acme::AcmeSettings;
using testing::bind9;
using testing::Bind9Server;
using testing::PebbleOptions;
using testing::PebbleServer;
using namespace testing::acme_world;

namespace {

// The error's message, or nothing: doctest builds *_MESSAGE texts even for passing checks.
template <class R>
std::string whyNot(const R& result) {
  return result.ok() ? std::string() : result.error().message;
}

// Registers `a` and keeps what the CA said, as the service will.
domain::AcmeAccount registered(AcmeIssuer& issuer, domain::AcmeAccount a) {
  auto state = issuer.registerAccount(a);
  REQUIRE_MESSAGE(state.ok(), whyNot(state));
  a.account_url = state->account_url;
  a.key_sealed = state->key_sealed;
  a.status = state->status;
  return a;
}

std::string fileText(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// HTTP-01 answers served by an HttpStub, for a Pebble that validates at the stub's port.
class StubHttp01 : public ports::Http01Responder {
 public:
  domain::Status present(const ports::Http01Challenge& c) override {
    std::lock_guard lock(mutex_);
    answers_[c.token] = c.key_authorization;
    names_.push_back(c.name);
    return {};
  }
  domain::Status cleanup(const ports::Http01Challenge& c) override {
    std::lock_guard lock(mutex_);
    answers_.erase(c.token);
    return {};
  }
  testing::StubReply answer(const std::string& path) {
    std::lock_guard lock(mutex_);
    const std::string prefix = "/.well-known/acme-challenge/";
    if (!path.starts_with(prefix)) return {404, "text/plain", "no"};
    const auto it = answers_.find(path.substr(prefix.size()));
    if (it == answers_.end()) return {404, "text/plain", "no"};
    return {200, "text/plain", it->second};
  }
  std::vector<std::string> names() {
    std::lock_guard lock(mutex_);
    return names_;
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> answers_;
  std::vector<std::string> names_;
};

// A second Pebble with one alternate root, validating HTTP-01 at a stub that serves
// StubHttp01's answers.
struct AlternatePebble {
  StubHttp01 http01;
  testing::HttpStub stub{
      [this](const std::string&, const std::string& path) { return http01.answer(path); }};
  PebbleServer ca{PebbleOptions{testing::readyBind9().address(), {}, 0, stub.port(), 1}};
};

AlternatePebble& alternatePebble() {
  static AlternatePebble world;
  REQUIRE_MESSAGE(world.ca.available(), world.ca.reason());
  return world;
}

int keyBits(const std::string& keyPem, int* baseId) {
  auto key = adapters::acme::KeyPair::fromPem(keyPem);
  REQUIRE(key.ok());
  auto* pkey = static_cast<EVP_PKEY*>(key->native());
  *baseId = EVP_PKEY_get_base_id(pkey);
  return EVP_PKEY_get_bits(pkey);
}

}  // namespace

TEST_CASE("acme: an account registers, its key is made here and kept only sealed") {
  AcmeIssuer issuer(box(), settings(pebble()));
  auto state = issuer.registerAccount(account(pebble()));
  REQUIRE_MESSAGE(state.ok(), whyNot(state));
  CHECK(state->status == "valid");
  CHECK(state->account_url.starts_with("https://127.0.0.1:"));
  REQUIRE(state->key_sealed.starts_with("v1:"));
  CHECK(state->key_sealed.find("PRIVATE") == std::string::npos);
  // The same key again finds the same account.
  auto a = account(pebble());
  a.key_sealed = state->key_sealed;
  auto again = issuer.registerAccount(a);
  REQUIRE(again.ok());
  CHECK(again->account_url == state->account_url);
  CHECK(again->key_sealed.empty());  // no new key
}

TEST_CASE(
    "acme: a project's directory on a refused address is not contacted, and opened by the "
    "operator it is") {
  auto refusing = settings(pebble());
  refusing.outbound = std::make_shared<adapters::common::Outbound>(domain::OutboundPolicy{});
  AcmeIssuer refused(box(), refusing);
  const auto state = refused.registerAccount(account(pebble()));
  REQUIRE_FALSE(state.ok());
  CHECK(state.error().reason == adapters::common::kOutboundRefused);
  CHECK(state.error().message.find("outbound policy") != std::string::npos);
  auto opened = settings(pebble());
  opened.outbound = testing::loopbackOutbound();
  AcmeIssuer allowed(box(), opened);
  const auto ok = allowed.registerAccount(account(pebble()));
  CHECK_MESSAGE(ok.ok(), whyNot(ok));
}

TEST_CASE("acme: DNS-01 through bind9 issues a chain that verifies against Pebble's root") {
  AcmeIssuer issuer(box(), settings(pebble()));
  const auto a = registered(issuer, account(pebble()));
  ExampleZone dns(tsig());
  auto issued =
      issuer.issue({a, {"www.example.test", "*.example.test"}, domain::KeyType::ecdsa_p256}, dns);
  REQUIRE_MESSAGE(issued.ok(), whyNot(issued) << "\n" << (issued.ok() ? "" : pebble().log()));
  const std::string root = pebble().managementGet("/roots/0");
  CHECK(testing::chainVerifies(issued->certificate_pem, issued->chain_pem, root));
  auto facts = adapters::acme::inspectCertificate(issued->certificate_pem);
  REQUIRE(facts.ok());
  CHECK(facts->serial_hex == issued->serial_number);
  CHECK(std::count(facts->dns_names.begin(), facts->dns_names.end(), "www.example.test") == 1);
  CHECK(std::count(facts->dns_names.begin(), facts->dns_names.end(), "*.example.test") == 1);
  CHECK(issued->expires_at > issued->not_before);
  int base = 0;
  CHECK(keyBits(issued->private_key_pem, &base) == 256);
  CHECK(base == EVP_PKEY_EC);
  // The challenge records are gone again.
  CHECK(dns.cleanups == 2);
  CHECK(dns.inner_.lookupTxt(bind9().address(), "_acme-challenge.example.test.")->empty());

  // Revocation is seen by Pebble.
  REQUIRE(issuer.revoke(a, issued->certificate_pem).ok());
  const auto status = pebble().managementGet("/cert-status-by-serial/" + issued->serial_number);
  CHECK_MESSAGE(status.find("Revoked") != std::string::npos, status);
}

TEST_CASE("acme: a renewalInfo window offered by the directory sets the renewal time (RFC 9773)") {
  // Pebble 2.4 has no ARI: a stub serves Pebble's directory with renewalInfo added, and the
  // recorded window; everything else goes to Pebble itself.
  auto directory = boost::json::parse(pebble().directoryJson()).as_object();
  std::string window =
      R"({"suggestedWindow":{"start":"2031-02-03T04:00:00Z","end":"2031-02-05T04:00:00Z"}})";
  int ariStatus = 200;
  std::vector<std::pair<std::string, std::string>> ariHeaders;
  testing::HttpStub stub([&](const std::string& method, const std::string& path) {
    if (method == "GET" && path == "/dir") {
      return testing::StubReply{200, "application/json", boost::json::serialize(directory)};
    }
    if (method == "GET" && path.starts_with("/ari/")) {
      return testing::StubReply{ariStatus, "application/json", ariStatus == 200 ? window : "{}",
                                ariHeaders};
    }
    return testing::StubReply{404, "application/problem+json", "{}"};
  });
  REQUIRE(stub.available());
  directory["renewalInfo"] = stub.url("/ari/");
  AcmeIssuer issuer(box(), settings(pebble()));
  auto a = account(pebble());
  a.directory_url = stub.url("/dir");
  a = registered(issuer, a);
  ExampleZone dns(tsig());
  auto issued = issuer.issue({a, {"ari.example.test"}, domain::KeyType::ecdsa_p256}, dns);
  REQUIRE_MESSAGE(issued.ok(), whyNot(issued));
  REQUIRE(issued->suggested_renewal_at.has_value());
  CHECK(*issued->suggested_renewal_at >= *domain::parseTimestamp("2031-02-03T04:00:00Z"));
  CHECK(*issued->suggested_renewal_at < *domain::parseTimestamp("2031-02-05T04:00:00Z"));
  // The CA was asked about exactly this certificate, by its RFC 9773 identifier.
  const auto id = adapters::acme::ariCertId(issued->certificate_pem);
  REQUIRE(id.ok());
  const auto asked = stub.requests();
  CHECK(std::count(asked.begin(), asked.end(), "GET /ari/" + *id) == 1);

  // Asked again later (the check_renewal_info job): the window, with the CA's Retry-After.
  window = R"({"suggestedWindow":{"start":"2030-01-01T00:00:00Z","end":"2030-01-02T00:00:00Z"},)"
           R"("explanationURL":"https://ca.test/incident"})";
  ariHeaders = {{"Retry-After", "21600"}};
  auto again = issuer.renewalInfo(a, issued->certificate_pem);
  REQUIRE_MESSAGE(again.ok(), (again.ok() ? "" : again.error().message));
  CHECK(again->window_start == *domain::parseTimestamp("2030-01-01T00:00:00Z"));
  CHECK(again->window_end == *domain::parseTimestamp("2030-01-02T00:00:00Z"));
  CHECK(again->explanation_url == "https://ca.test/incident");
  REQUIRE(again->retry_after.has_value());
  const auto wait = *again->retry_after - std::chrono::time_point_cast<domain::Duration>(
                                              std::chrono::system_clock::now());
  CHECK(wait > std::chrono::hours{5});
  CHECK(wait <= std::chrono::hours{6});
  const auto askedAgain = stub.requests();
  CHECK(std::count(askedAgain.begin(), askedAgain.end(), "GET /ari/" + *id) == 2);
  // A CA that answers with an error, or what is no window: unavailable, said in words.
  ariStatus = 503;
  auto down = issuer.renewalInfo(a, issued->certificate_pem);
  REQUIRE_FALSE(down.ok());
  CHECK(down.error().code == domain::ErrorCode::unavailable);
  CHECK(down.error().message.find("503") != std::string::npos);
  ariStatus = 200;
  window = R"({"suggestedWindow":{"start":"not a time"}})";
  auto garbled = issuer.renewalInfo(a, issued->certificate_pem);
  REQUIRE_FALSE(garbled.ok());
  CHECK(garbled.error().code == domain::ErrorCode::unavailable);

  // Without renewalInfo (Pebble's own directory) there is no suggestion: the threshold decides.
  auto plain = issuer.issue(
      {registered(issuer, account(pebble())), {"plain.example.test"}, domain::KeyType::ecdsa_p256},
      dns);
  REQUIRE_MESSAGE(plain.ok(), whyNot(plain));
  CHECK_FALSE(plain->suggested_renewal_at.has_value());
  auto none = issuer.renewalInfo(registered(issuer, account(pebble())), plain->certificate_pem);
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == domain::ErrorCode::failed_precondition);
}

TEST_CASE("acme: a rateLimited answer is reported with its Retry-After, in seconds or as a date") {
  // Pebble has no rate limits: a stub plays a CA that refuses every order.
  std::string retryAfter;
  std::string base;
  testing::HttpStub stub([&](const std::string& method, const std::string& path) {
    if (method == "GET" && path == "/dir") {
      return testing::StubReply{
          200, "application/json",
          boost::json::serialize(boost::json::object{{"newNonce", base + "/nonce"},
                                                     {"newAccount", base + "/account"},
                                                     {"newOrder", base + "/order"}})};
    }
    if (path == "/nonce")
      return testing::StubReply{200, "text/plain", "", {{"Replay-Nonce", "n1"}}};
    if (method == "POST" && path == "/order") {
      std::vector<std::pair<std::string, std::string>> headers{{"Replay-Nonce", "n2"}};
      if (!retryAfter.empty()) headers.emplace_back("Retry-After", retryAfter);
      return testing::StubReply{
          429, "application/problem+json",
          R"({"type":"urn:ietf:params:acme:error:rateLimited","detail":"too many certificates (50) already issued for \"example.test\" in the last 168h0m0s"})",
          headers};
    }
    return testing::StubReply{404, "application/problem+json", "{}"};
  });
  REQUIRE(stub.available());
  base = stub.url("");
  AcmeIssuer issuer(box(), settings(pebble()));
  auto a = account(pebble());
  a.directory_url = stub.url("/dir");
  a.account_url = stub.url("/acct/1");  // registered: the order is the first request
  ExampleZone dns(tsig());

  const struct {
    std::string header;
    std::optional<std::chrono::seconds> low, high;
  } rows[] = {
      {"3600", 3600s, 3600s},
      {"0", 0s, 0s},
      {"99999999999", std::chrono::days{30}, std::chrono::days{30}},  // at most 30 days
      {"", std::nullopt, std::nullopt},
      {"soon", std::nullopt, std::nullopt},
  };
  for (const auto& row : rows) {
    CAPTURE(row.header);
    retryAfter = row.header;
    ports::IssueReport report;
    auto refused =
        issuer.issue({a, {"www.example.test"}, domain::KeyType::ecdsa_p256, nullptr, &report}, dns);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == domain::ErrorCode::resource_exhausted);
    CHECK(refused.error().reason == "rateLimited");
    CHECK(report.rate_limited);
    CHECK(report.orders_created == 0);
    CHECK(report.rate_limit_detail.find("too many certificates (50)") != std::string::npos);
    CHECK(report.retry_after.has_value() == row.low.has_value());
    if (row.low && report.retry_after) {
      CHECK(*report.retry_after >= *row.low);
      CHECK(*report.retry_after <= *row.high);
    }
  }

  // An HTTP-date: the time left until then.
  const auto inTwoHours = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now() +
                                                               std::chrono::hours{2});
  std::tm tm{};
  ::gmtime_r(&inTwoHours, &tm);
  char date[64];
  std::strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S GMT", &tm);
  retryAfter = date;
  ports::IssueReport report;
  auto refused =
      issuer.issue({a, {"www.example.test"}, domain::KeyType::ecdsa_p256, nullptr, &report}, dns);
  REQUIRE_FALSE(refused.ok());
  REQUIRE(report.retry_after.has_value());
  CHECK(*report.retry_after > 1h + 58min);
  CHECK(*report.retry_after <= 2h);
}

TEST_CASE("acme: names the CA could not validate are reported, with the order") {
  // A DNS provider that publishes the wrong value: Pebble finds the authorization invalid.
  class WrongValue : public ExampleZone {
   public:
    using ExampleZone::ExampleZone;
    domain::Status present(const ports::TxtRecord& r) override {
      auto wrong = r;
      wrong.value = "not-the-key-authorization";
      published = wrong;
      return ExampleZone::present(wrong);
    }
    domain::Status cleanup(const ports::TxtRecord&) override {
      return ExampleZone::cleanup(published);
    }
    domain::Status waitVisible(const ports::TxtRecord&, domain::Duration t) override {
      return ExampleZone::waitVisible(published, t);
    }
    ports::TxtRecord published;
  };
  AcmeIssuer issuer(box(), settings(pebble()));
  const auto a = registered(issuer, account(pebble()));
  WrongValue dns(tsig());
  ports::IssueReport report;
  auto failed =
      issuer.issue({a, {"wrong.example.test"}, domain::KeyType::ecdsa_p256, nullptr, &report}, dns);
  REQUIRE_FALSE(failed.ok());
  CHECK(report.orders_created == 1);
  REQUIRE(report.failed_validations.size() == 1);
  CHECK(report.failed_validations.front() == "wrong.example.test");
  CHECK_FALSE(report.rate_limited);
}

TEST_CASE("acme: account key rollover — the account keeps its URL under the new key") {
  AcmeIssuer issuer(box(), settings(pebble()));
  const auto before = registered(issuer, account(pebble(), "rollover@example.test"));
  auto rolled = issuer.rolloverKey(before);
  REQUIRE_MESSAGE(rolled.ok(), whyNot(rolled));
  CHECK(rolled->account_url == before.account_url);
  REQUIRE(rolled->key_sealed.starts_with("v1:"));
  CHECK(rolled->key_sealed != before.key_sealed);
  // The new key finds the same account; the old one no longer does (the CA makes a new one).
  auto after = before;
  after.key_sealed = rolled->key_sealed;
  auto found = issuer.registerAccount(after);
  REQUIRE_MESSAGE(found.ok(), whyNot(found));
  CHECK(found->account_url == before.account_url);
  auto withOld = before;
  withOld.account_url.clear();
  auto other = issuer.registerAccount(withOld);
  REQUIRE_MESSAGE(other.ok(), whyNot(other));
  CHECK(other->account_url != before.account_url);
  // Orders go on under the new key.
  ExampleZone dns(tsig());
  auto issued = issuer.issue({after, {"rolled.example.test"}, domain::KeyType::ecdsa_p256}, dns);
  CHECK_MESSAGE(issued.ok(), whyNot(issued));
  // An unregistered account cannot roll over.
  auto unregistered = issuer.rolloverKey(account(pebble()));
  REQUIRE_FALSE(unregistered.ok());
  CHECK(unregistered.error().code == domain::ErrorCode::failed_precondition);
}

TEST_CASE("acme: RSA keys, a second order gives a new serial") {
  AcmeIssuer issuer(box(), settings(pebble()));
  const auto a = registered(issuer, account(pebble()));
  ExampleZone dns(tsig());
  auto first = issuer.issue({a, {"rsa.example.test"}, domain::KeyType::rsa_2048}, dns);
  REQUIRE_MESSAGE(first.ok(), whyNot(first));
  auto second = issuer.issue({a, {"rsa.example.test"}, domain::KeyType::rsa_2048}, dns);
  REQUIRE_MESSAGE(second.ok(), whyNot(second));
  CHECK(first->serial_number != second->serial_number);
  int base = 0;
  CHECK(keyBits(second->private_key_pem, &base) == 2048);
  CHECK(base == EVP_PKEY_RSA);
}

TEST_CASE("acme: failures are clear and bounded — wrong TSIG key, unreachable CA") {
  AcmeIssuer issuer(box(), settings(pebble()));
  const auto a = registered(issuer, account(pebble()));
  ExampleZone wrongKey(tsig("AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="));
  auto denied = issuer.issue({a, {"denied.example.test"}, domain::KeyType::ecdsa_p256}, wrongKey);
  REQUIRE_FALSE(denied.ok());
  CHECK(denied.error().code == domain::ErrorCode::permission_denied);

  auto offline = account(pebble());
  offline.directory_url =
      "https://127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/dir";
  const auto start = std::chrono::steady_clock::now();
  auto unreachable = issuer.registerAccount(offline);
  REQUIRE_FALSE(unreachable.ok());
  CHECK(unreachable.error().code == domain::ErrorCode::unavailable);
  CHECK(std::chrono::steady_clock::now() - start < 10s);
}

TEST_CASE("acme: External Account Binding — required by the CA, refused without, accepted with") {
  const std::string kid = "kid-certsteward";
  const std::string mac = domain::base64UrlEncode(std::string(32, 'm'));
  PebbleServer eabCa(testing::PebbleOptions{bind9().address(), {{kid, mac}}, 0});
  REQUIRE_MESSAGE(eabCa.available(), eabCa.reason());
  AcmeIssuer issuer(box(), settings(eabCa));
  auto without = issuer.registerAccount(account(eabCa));
  REQUIRE_FALSE(without.ok());
  CHECK_MESSAGE(without.error().reason == "externalAccountRequired", without.error().message);

  auto a = account(eabCa);
  a.eab_kid = kid;
  a.eab_hmac_sealed = *box().seal(mac);
  auto with = issuer.registerAccount(a);
  REQUIRE_MESSAGE(with.ok(), whyNot(with));
  CHECK(with->status == "valid");
}

TEST_CASE(
    "acme: a provider's trust bundle alone is trusted for its CA, and its directory is read") {
  auto s = settings(pebble());
  s.ca_bundle.clear();
  const std::string pem = fileText(pebble().caFile());
  REQUIRE_FALSE(pem.empty());
  AcmeIssuer issuer(box(), s);
  auto meta = issuer.readDirectory(pebble().directoryUrl(), pem);
  REQUIRE_MESSAGE(meta.ok(), whyNot(meta));
  CHECK_FALSE(meta->external_account_required);
  CHECK(meta->profiles.empty());  // Pebble 2.4 offers none
  CHECK_FALSE(meta->renewal_info);
  // Neither the system's roots nor another CA's bundle trust Pebble's certificate.
  auto untrusted = issuer.readDirectory(pebble().directoryUrl(), "");
  REQUIRE_FALSE(untrusted.ok());
  CHECK(untrusted.error().code == domain::ErrorCode::unavailable);
  const auto other = testing::makeTestMaterial("other.test", "DNS:other.test").chain_pem;
  CHECK_FALSE(issuer.readDirectory(pebble().directoryUrl(), other).ok());
  // A provider's bundle replaces acme.ca_bundle too: with both, only the bundle counts.
  AcmeIssuer withCaFile(box(), settings(pebble()));
  CHECK(withCaFile.readDirectory(pebble().directoryUrl(), "").ok());
  CHECK_FALSE(withCaFile.readDirectory(pebble().directoryUrl(), other).ok());

  // An order goes through the bundle of the provider at the account's directory.
  s.trust_bundle_for = [&](const std::string& url) {
    return url == pebble().directoryUrl() ? pem : std::string();
  };
  AcmeIssuer trusting(box(), s);
  auto a = registered(trusting, account(pebble()));
  ExampleZone dns(tsig());
  auto issued = trusting.issue({a, {"trust.example.test"}, domain::KeyType::ecdsa_p256}, dns);
  CHECK_MESSAGE(issued.ok(), whyNot(issued));
}

TEST_CASE("acme: a directory's meta gives profiles, CAA identities, EAB and renewalInfo") {
  testing::HttpStub stub([](const std::string& method, const std::string& path) {
    if (method == "GET" && path == "/dir") {
      return testing::StubReply{
          200, "application/json",
          R"({"newNonce":"x","newAccount":"x","newOrder":"x","renewalInfo":"x",
              "meta":{"profiles":{"classic":"https://ca.test/classic","shortlived":"6 days"},
                      "caaIdentities":["ca.test"],"externalAccountRequired":true}})"};
    }
    return testing::StubReply{404, "application/problem+json", "{}"};
  });
  REQUIRE(stub.available());
  AcmeIssuer issuer(box(), settings(pebble()));
  auto meta = issuer.readDirectory(stub.url("/dir"), "");
  REQUIRE_MESSAGE(meta.ok(), whyNot(meta));
  REQUIRE(meta->profiles.size() == 2);
  CHECK(meta->profiles[0].name == "classic");
  CHECK(meta->profiles[1].description == "6 days");
  CHECK(meta->caa_identities == std::vector<std::string>{"ca.test"});
  CHECK(meta->external_account_required);
  CHECK(meta->renewal_info);
  // Something that is no ACME directory is said to be one no more.
  auto notOne = issuer.readDirectory(stub.url("/nothing"), "");
  REQUIRE_FALSE(notOne.ok());
}

TEST_CASE("acme: a preferred chain is taken among the alternates the CA offers, else the default") {
  auto& world = alternatePebble();
  const auto root0 = adapters::acme::topIssuerName(world.ca.managementGet("/roots/0"));
  const auto root1 = adapters::acme::topIssuerName(world.ca.managementGet("/roots/1"));
  REQUIRE_FALSE(root0.empty());
  REQUIRE_FALSE(root1.empty());
  REQUIRE(root0 != root1);
  AcmeIssuer issuer(box(), settings(world.ca));
  auto a = registered(issuer, account(world.ca));
  ExampleZone dns(tsig());
  auto plain = issuer.issue({a, {"chain.example.test"}, domain::KeyType::ecdsa_p256}, dns);
  REQUIRE_MESSAGE(plain.ok(), whyNot(plain));
  CHECK((plain->chain_issuer == root0 || plain->chain_issuer == root1));
  const std::string other = plain->chain_issuer == root0 ? root1 : root0;

  ports::IssueRequest wanted{a, {"chain.example.test"}, domain::KeyType::ecdsa_p256};
  wanted.preferred_chain = other;
  auto alternate = issuer.issue(wanted, dns);
  REQUIRE_MESSAGE(alternate.ok(), whyNot(alternate));
  CHECK(alternate->chain_issuer == other);
  CHECK(adapters::acme::topIssuerName(alternate->chain_pem) == other);
  CHECK(alternate->chain_pem != plain->chain_pem);

  wanted.preferred_chain = "No Such Root";
  auto fallback = issuer.issue(wanted, dns);
  REQUIRE_MESSAGE(fallback.ok(), whyNot(fallback));
  CHECK(fallback->chain_issuer == plain->chain_issuer);
}

TEST_CASE("acme: an IP address is ordered as an ip identifier and proven over HTTP-01 (RFC 8738)") {
  auto& world = alternatePebble();
  AcmeIssuer issuer(box(), settings(world.ca));
  auto a = registered(issuer, account(world.ca));
  ExampleZone dns(tsig());
  ports::IssueRequest request{a, {"127.0.0.1"}, domain::KeyType::ecdsa_p256};
  request.challenge = domain::ChallengeType::http_01;
  request.http01 = &world.http01;
  auto issued = issuer.issue(request, dns);
  REQUIRE_MESSAGE(issued.ok(), whyNot(issued));
  CHECK(world.http01.names() == std::vector<std::string>{"127.0.0.1"});
  // The certificate names the address as an iPAddress SAN and has no DNS name.
  auto facts = adapters::acme::inspectCertificate(issued->certificate_pem);
  REQUIRE(facts.ok());
  CHECK(facts->dns_names.empty());
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(issued->certificate_pem.data(),
                      static_cast<int>(issued->certificate_pem.size())),
      BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr), X509_free);
  REQUIRE(cert);
  CHECK(X509_check_ip_asc(cert.get(), "127.0.0.1", 0) == 1);
}
