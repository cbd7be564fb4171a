// The RFC 2136 + TSIG DNS provider against a real bind9 started by the test on 127.0.0.1.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>

#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>
#include "integration/bind9_ready.hpp"
#include "support/outbound.hpp"

using namespace certsteward;
using namespace std::chrono_literals;
using adapters::dns::Rfc2136DnsProvider;
using adapters::dns::Rfc2136Settings;
using testing::bind9;
using testing::Bind9Server;

namespace {

Rfc2136Settings settings(const char* key = Bind9Server::kKey256,
                         const char* secret = Bind9Server::kSecret256,
                         const char* algorithm = "hmac-sha256") {
  Rfc2136Settings s;
  s.server = testing::readyBind9().address();
  s.key_name = key;
  s.algorithm = algorithm;
  s.secret = secret;
  s.timeout = 2s;
  s.poll_interval = 50ms;
  return s;
}

ports::TxtRecord challenge(const std::string& label, const std::string& value) {
  return {"example.test.", "_acme-challenge." + label + ".example.test.", value, 60};
}

bool has(const std::vector<std::string>& values, const std::string& v) {
  return std::find(values.begin(), values.end(), v) != values.end();
}

}  // namespace

TEST_CASE("rfc2136: a signed update adds the TXT record, cleanup removes exactly it") {
  Rfc2136DnsProvider dns(settings());
  const auto first = challenge("www", "evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oA");
  const auto second = challenge("www", "Zm9vYmFyLXNlY29uZC12YWx1ZS1mb3Itd2lsZGNhcmRz");
  REQUIRE(dns.present(first).ok());
  REQUIRE(dns.present(second).ok());  // a wildcard and its base name share one owner name
  CHECK(dns.waitVisible(first, 2s).ok());
  auto values = dns.lookupTxt(bind9().address(), first.name);
  REQUIRE(values.ok());
  CHECK(values->size() == 2);
  CHECK(has(*values, first.value));
  CHECK(has(*values, second.value));

  REQUIRE(dns.cleanup(first).ok());
  values = dns.lookupTxt(bind9().address(), first.name);
  REQUIRE(values.ok());
  CHECK_FALSE(has(*values, first.value));
  CHECK(has(*values, second.value));
  CHECK(dns.cleanup(first).ok());  // removing an absent record succeeds
  REQUIRE(dns.cleanup(second).ok());
  CHECK(dns.lookupTxt(bind9().address(), first.name)->empty());
}

TEST_CASE(
    "rfc2136: a DNS server on a refused address is not contacted unless the operator opens it") {
  auto refusing = settings();
  refusing.outbound = std::make_shared<adapters::common::Outbound>(domain::OutboundPolicy{});
  Rfc2136DnsProvider refused(refusing);
  const auto record = challenge("policy", "refused-value");
  const auto sent = refused.present(record);
  REQUIRE_FALSE(sent.ok());
  CHECK(sent.error().reason == adapters::common::kOutboundRefused);
  auto opened = settings();
  opened.outbound = testing::loopbackOutbound();
  Rfc2136DnsProvider allowed(opened);
  CHECK(allowed.present(record).ok());
  CHECK(allowed.cleanup(record).ok());
}

TEST_CASE("rfc2136: hmac-sha512 keys work too") {
  Rfc2136DnsProvider dns(settings(Bind9Server::kKey512, Bind9Server::kSecret512, "hmac-sha512"));
  const auto record = challenge("api", "c2hhNTEyLWtleS12YWx1ZS1mb3ItdGhlLWFwaS1ob3N0");
  REQUIRE(dns.present(record).ok());
  CHECK(dns.waitVisible(record, 2s).ok());
  REQUIRE(dns.cleanup(record).ok());
}

TEST_CASE("rfc2136: a wrong key is refused and changes nothing, without showing the secret") {
  const auto record = challenge("denied", "d3Jvbmcta2V5LXNob3VsZC1uZXZlci1iZS12aXNpYmxl");
  const std::string forged = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
  for (const auto& s : {settings(Bind9Server::kKey256, forged.c_str()),
                        settings("no-such-key", Bind9Server::kSecret256),
                        settings(Bind9Server::kKey256, Bind9Server::kSecret256, "hmac-sha512")}) {
    Rfc2136DnsProvider dns(s);
    const auto result = dns.present(record);
    REQUIRE_FALSE(result.ok());
    CHECK(result.error().code == domain::ErrorCode::permission_denied);
    CHECK(result.error().message.find(s.secret) == std::string::npos);
  }
  Rfc2136DnsProvider good(settings());
  CHECK(good.lookupTxt(bind9().address(), record.name)->empty());
}

TEST_CASE("rfc2136: names outside the zone, malformed values and bad settings are refused") {
  Rfc2136DnsProvider dns(settings());
  auto outside = dns.present({"example.test.", "_acme-challenge.other.test.", "dmFsdWU", 60});
  REQUIRE_FALSE(outside.ok());
  CHECK(outside.error().code == domain::ErrorCode::invalid_argument);
  for (const std::string& value : {std::string{}, std::string("quote\"d"), std::string(300, 'a'),
                                   std::string("semi;colon"), std::string("new\nline")}) {
    CHECK(dns.present(challenge("bad", value)).error().code == domain::ErrorCode::invalid_argument);
  }
  CHECK(dns.present({"example.test.", "bad name with spaces.example.test.", "dmFsdWU", 60})
            .error()
            .code == domain::ErrorCode::invalid_argument);

  auto s = settings();
  s.algorithm = "hmac-md5";
  CHECK_FALSE(Rfc2136DnsProvider::validate(s).ok());
  s = settings();
  s.secret = "not base64!";
  CHECK_FALSE(Rfc2136DnsProvider::validate(s).ok());
  s = settings();
  s.server = "";
  CHECK_FALSE(Rfc2136DnsProvider::validate(s).ok());
  s = settings();
  s.server = "127.0.0.1:99999";
  CHECK(Rfc2136DnsProvider(s).present(challenge("x", "dmFsdWU")).error().code ==
        domain::ErrorCode::invalid_argument);
  CHECK(Rfc2136DnsProvider::validate(settings()).ok());
}

TEST_CASE("rfc2136: an unreachable server and a record that never appears fail in bounded time") {
  auto s = settings();
  s.server = "127.0.0.1:" + std::to_string(testing::freeLoopbackPort());
  s.timeout = 300ms;
  Rfc2136DnsProvider down(s);
  const auto start = std::chrono::steady_clock::now();
  const auto result = down.present(challenge("down", "dmFsdWU"));
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == domain::ErrorCode::unavailable);
  CHECK(std::chrono::steady_clock::now() - start < 5s);

  Rfc2136DnsProvider dns(settings());
  const auto waitStart = std::chrono::steady_clock::now();
  const auto invisible = dns.waitVisible(challenge("never", "bmV2ZXItcHJlc2VudGVk"), 400ms);
  const auto waited = std::chrono::steady_clock::now() - waitStart;
  REQUIRE_FALSE(invisible.ok());
  CHECK(invisible.error().code == domain::ErrorCode::unavailable);
  CHECK(waited >= 300ms);
  CHECK(waited < 3s);
}
