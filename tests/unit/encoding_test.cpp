// The encoders of domain/encoding.hpp: RFC 4648's test vectors both ways, and every
// non-canonical text refused.
#include <doctest/doctest.h>

#include <certsteward/domain/encoding.hpp>
#include "support/test_certificates.hpp"

using namespace certsteward::domain;

TEST_CASE("encoding: RFC 4648 vectors in base64, base64url and hex") {
  const struct {
    const char* plain;
    const char* base64;
    const char* base64url;
    const char* hex;
  } rows[] = {
      {"", "", "", ""},
      {"f", "Zg==", "Zg", "66"},
      {"fo", "Zm8=", "Zm8", "666f"},
      {"foo", "Zm9v", "Zm9v", "666f6f"},
      {"foob", "Zm9vYg==", "Zm9vYg", "666f6f62"},
      {"fooba", "Zm9vYmE=", "Zm9vYmE", "666f6f6261"},
      {"foobar", "Zm9vYmFy", "Zm9vYmFy", "666f6f626172"},
      {"\xfb\xff\xfe", "+//+", "-__-", "fbfffe"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.plain);
    CHECK(base64Encode(row.plain) == row.base64);
    CHECK(base64Decode(row.base64) == std::string(row.plain));
    CHECK(base64UrlEncode(row.plain) == row.base64url);
    CHECK(base64UrlDecode(row.base64url) == std::string(row.plain));
    CHECK(toHex(row.plain) == row.hex);
    CHECK(fromHex(row.hex) == std::string(row.plain));
  }
  std::string all;
  for (int i = 0; i < 256; ++i)
    all.push_back(static_cast<char>(i));
  CHECK(base64Decode(base64Encode(all)) == all);
  CHECK(base64UrlDecode(base64UrlEncode(all)) == all);
  CHECK(fromHex(toHex(all)) == all);
  CHECK(fromHex("FBFFFE") == std::string("\xfb\xff\xfe"));
}

TEST_CASE("encoding: texts that are not the canonical encoding are refused") {
  for (const char* text : {"Zg=", "Zg", "Zm9vYg=", "Zm9v!mFy",
                           "Zh==", "Zm9=", "Z===", "====", "Zm9vYg==Zg==", "-__-", "Zm 9v"}) {
    CAPTURE(text);
    CHECK_FALSE(base64Decode(text).has_value());
  }
  for (const char* text : {"Zg==", "Zh", "Z", "+//+", "Zm9v!", "Zm9vY"}) {
    CAPTURE(text);
    CHECK_FALSE(base64UrlDecode(text).has_value());
  }
  for (const char* text : {"6", "6g", "0x66", "66 "}) {
    CAPTURE(text);
    CHECK_FALSE(fromHex(text).has_value());
  }
}

TEST_CASE("encoding: a PEM certificate bundle is checked for its structure, not its shape") {
  const auto a = certsteward::testing::makeTestMaterial("a.example.test");
  const auto b = certsteward::testing::makeTestMaterial("b.example.test");
  CHECK(pemCertificatesProblem(a.certificate_pem) == "");
  CHECK(pemCertificatesProblem(a.certificate_pem + "\n" + b.chain_pem) == "");
  CHECK(pemCertificatesProblem("\r\n" + a.chain_pem + "  \n") == "");
  std::string cut = a.certificate_pem;  // one line of the body missing
  cut.erase(cut.find('\n') + 1, 65);
  const std::string begin = "-----BEGIN CERTIFICATE-----\n";
  const std::string end = "-----END CERTIFICATE-----\n";
  const struct {
    std::string bundle;
    const char* problem;
  } refused[] = {
      {"", "must hold PEM certificates (-----BEGIN CERTIFICATE-----)"},
      {"not PEM", "must hold PEM certificates (-----BEGIN CERTIFICATE-----)"},
      {begin + "not base64!\n" + end, "has a certificate block that is not a certificate"},
      {begin + "aGVsbG8=\n" + end, "has a certificate block that is not a certificate"},
      {begin + end, "has a certificate block that is not a certificate"},
      {cut, "has a certificate block that is not a certificate"},
      {begin + a.certificate_pem.substr(begin.size()), ""},  // the same text: accepted
      // A bundle's comments and headers are read past, as OpenSSL reads past them.
      {"# ISRG Root X1\nISRG Root X1\n============\n" + a.certificate_pem + "# end\n", ""},
      {a.certificate_pem + "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
       "holds a PEM block that is not a certificate"},
      {a.certificate_pem.substr(0, a.certificate_pem.find("-----END")),
       "has a certificate block without its END line"},
      {std::string(70000, ' '), "must be at most 64 KiB"},
  };
  for (const auto& row : refused) {
    CAPTURE(row.bundle.substr(0, 80));
    CHECK(pemCertificatesProblem(row.bundle) == row.problem);
  }
}
