// TOTP against the RFC 6238 test vectors (SHA-1, 8-digit values truncated to our 6 digits).
#include <doctest/doctest.h>

#include <certsteward/adapters/crypto/openssl_otp_hasher.hpp>
#include <certsteward/services/totp_codes.hpp>

using namespace certsteward;

TEST_CASE("totp: RFC 6238 vectors and the drift window") {
  adapters::crypto::OpenSslOtpHasher hasher;
  const std::string key = "12345678901234567890";
  // RFC 6238 Appendix B (SHA-1): 8-digit codes; HOTP's last 6 digits are the 6-digit code.
  const struct {
    std::int64_t time;
    const char* code;
  } rows[] = {{59, "287082"},
              {1111111109, "081804"},
              {1111111111, "050471"},
              {1234567890, "005924"},
              {2000000000, "279037"}};
  for (const auto& r : rows) {
    CAPTURE(r.time);
    CHECK(services::hotp(hasher, key, static_cast<std::uint64_t>(r.time / 30)) == r.code);
    CHECK(services::verifyTotp(hasher, key, r.code, domain::fromUnixSeconds(r.time)));
    CHECK(services::verifyTotp(hasher, key, r.code, domain::fromUnixSeconds(r.time + 30)));
    CHECK_FALSE(services::verifyTotp(hasher, key, r.code, domain::fromUnixSeconds(r.time + 90)));
  }
  CHECK_FALSE(services::verifyTotp(hasher, key, "12345", domain::fromUnixSeconds(59)));
  CHECK_FALSE(services::verifyTotp(hasher, key, "abcdef", domain::fromUnixSeconds(59)));
}

TEST_CASE("totp: base32 and otpauth URLs") {
  CHECK(domain::base32Encode("12345678901234567890") == "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ");
  CHECK(domain::base32Decode("GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ") == "12345678901234567890");
  CHECK(domain::base32Decode("gezdgnbv") == "12345");
  CHECK_FALSE(domain::base32Decode("GEZ1"));
  CHECK(
      domain::otpauthUrl("CertSteward", "alice@example.com", "ABC") ==
      "otpauth://totp/CertSteward:alice%40example.com?secret=ABC&issuer=CertSteward&algorithm=SHA1&"
      "digits=6&period=30");
}
