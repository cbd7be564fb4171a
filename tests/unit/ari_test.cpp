// ACME Renewal Information (RFC 9773): certificate identifiers checked against the RFC's own
// example, renewalInfo bodies as CAs send them (recorded), and the pick inside the window.
#include <doctest/doctest.h>

#include <openssl/pem.h>
#include <openssl/x509v3.h>

#include <certsteward/adapters/acme/ari.hpp>
#include "support/test_certificates.hpp"

using namespace certsteward;
using namespace certsteward::adapters::acme;
using namespace std::chrono_literals;

namespace {

// The RFC 9773 4.1 example: this Authority Key Identifier and serial 0x87654321.
const char* kRfcKeyId = "69:88:5B:6B:87:46:40:41:E1:B3:7B:84:7B:A0:AE:2C:DE:01:C8:D4";
const char* kRfcCertId = "aYhba4dGQEHhs3uEe6CuLN4ByNQ.AIdlQyE";

// A leaf signed by a CA whose Subject Key Identifier is `caKeyId`; with `withAki` false the
// leaf carries no Authority Key Identifier.
std::string leafPem(const char* caKeyId, long serial, bool withAki = true) {
  EVP_PKEY* caKey = testing::detail::makeEcKey();
  EVP_PKEY* leafKey = testing::detail::makeEcKey();
  X509* ca = testing::detail::makeCert("ARI Test CA", caKey, nullptr, caKey, 1, true);
  X509V3_CTX ctx;
  X509V3_set_ctx(&ctx, ca, ca, nullptr, nullptr, 0);
  X509_EXTENSION* ski = X509V3_EXT_conf_nid(nullptr, &ctx, NID_subject_key_identifier, caKeyId);
  X509_add_ext(ca, ski, -1);
  X509_EXTENSION_free(ski);
  X509_sign(ca, caKey, EVP_sha256());
  X509* leaf = testing::detail::makeCert("ari.example.test", leafKey, ca, caKey, serial, false);
  if (withAki) {
    X509V3_set_ctx(&ctx, ca, leaf, nullptr, nullptr, 0);
    X509_EXTENSION* aki =
        X509V3_EXT_conf_nid(nullptr, &ctx, NID_authority_key_identifier, "keyid:always");
    X509_add_ext(leaf, aki, -1);
    X509_EXTENSION_free(aki);
    X509_sign(leaf, caKey, EVP_sha256());
  }
  std::string pem = testing::detail::certPem(leaf);
  X509_free(leaf);
  X509_free(ca);
  EVP_PKEY_free(leafKey);
  EVP_PKEY_free(caKey);
  return pem;
}

}  // namespace

TEST_CASE("ari: the certificate identifier of RFC 9773's example") {
  const std::string aki(
      "\x69\x88\x5B\x6B\x87\x46\x40\x41\xE1\xB3\x7B\x84\x7B\xA0\xAE\x2C\xDE\x01"
      "\xC8\xD4",
      20);
  const std::string serial("\x00\x87\x65\x43\x21", 5);
  CHECK(ariCertId(aki, serial) == kRfcCertId);
}

TEST_CASE("ari: the identifier read from a certificate, leading zero of the serial included") {
  const auto id = ariCertId(leafPem(kRfcKeyId, 0x87654321L));
  REQUIRE(id.ok());
  CHECK(*id == kRfcCertId);
  // A serial whose top bit is clear needs no leading zero.
  const auto small = ariCertId(leafPem(kRfcKeyId, 0x01020304L));
  REQUIRE(small.ok());
  CHECK(*small == "aYhba4dGQEHhs3uEe6CuLN4ByNQ.AQIDBA");
}

TEST_CASE("ari: no identifier without an Authority Key Identifier or a certificate") {
  const auto none = ariCertId(leafPem(kRfcKeyId, 7, false));
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == domain::ErrorCode::failed_precondition);
  const auto garbage = ariCertId(std::string_view("not a certificate"));
  REQUIRE_FALSE(garbage.ok());
  CHECK(garbage.error().code == domain::ErrorCode::invalid_argument);
}

TEST_CASE("ari: renewalInfo responses as CAs send them") {
  // RFC 9773 4.2's example body.
  const auto rfc = parseRenewalInfo(R"({
    "suggestedWindow": {"start": "2025-01-02T04:00:00Z", "end": "2025-01-03T04:00:00Z"},
    "explanationURL": "https://acme.example.com/docs/ari"
  })");
  REQUIRE(rfc.ok());
  CHECK(rfc->start == *domain::parseTimestamp("2025-01-02T04:00:00Z"));
  CHECK(rfc->end == *domain::parseTimestamp("2025-01-03T04:00:00Z"));
  CHECK(rfc->explanation_url == "https://acme.example.com/docs/ari");
  // Fractional seconds and no explanation, as Let's Encrypt answers.
  const auto le = parseRenewalInfo(
      R"({"suggestedWindow":{"start":"2026-12-20T11:43:05.123456Z","end":"2026-12-22T11:43:05.123456Z"}})");
  REQUIRE(le.ok());
  CHECK(le->end - le->start == 48h);
  CHECK(le->explanation_url.empty());
}

TEST_CASE("ari: malformed renewalInfo responses are refused") {
  for (
      const char* body : {
          "",
          "[]",
          "{}",
          R"({"suggestedWindow": "soon"})",
          R"({"suggestedWindow": {"start": "2025-01-02T04:00:00Z"}})",
          R"({"suggestedWindow": {"start": "yesterday", "end": "2025-01-03T04:00:00Z"}})",
          R"({"suggestedWindow": {"start": "2025-01-03T04:00:00Z", "end": "2025-01-02T04:00:00Z"}})",
          R"({"suggestedWindow": {"start": "2025-01-02T04:00:00Z", "end": "2025-01-02T04:00:00Z"}})",
      }) {
    const auto parsed = parseRenewalInfo(body);
    CHECK_MESSAGE(!parsed.ok(), body);
    if (!parsed.ok()) CHECK(parsed.error().code == domain::ErrorCode::invalid_argument);
  }
}

TEST_CASE("ari: the renewal time falls inside the window") {
  const RenewalWindow w{*domain::parseTimestamp("2025-01-02T04:00:00Z"),
                        *domain::parseTimestamp("2025-01-03T04:00:00Z"),
                        {}};
  CHECK(pickRenewalTime(w, 0.0) == w.start);
  CHECK(pickRenewalTime(w, 0.5) == *domain::parseTimestamp("2025-01-02T16:00:00Z"));
  CHECK(pickRenewalTime(w, 0.999999999) < w.end);
  CHECK(pickRenewalTime(w, 1.0) < w.end);
  CHECK(pickRenewalTime(w, -3.0) == w.start);
}
