// The secret box: round trips, tamper detection, and no secret in the sealed form.
#include <doctest/doctest.h>

#include "adapters/crypto/aes_gcm_secret_box.hpp"
#include "adapters/runtime/zoneinfo_time_zones.hpp"

using namespace certsteward;

TEST_CASE("crypto: sealing round-trips and never shows the plaintext") {
  adapters::crypto::AesGcmSecretBox box(std::string(32, 'k'));
  for (const std::string& plain : {std::string{}, std::string("tsig-secret=="),
                                   std::string(10000, 'x'), std::string("\0bin\xff", 5)}) {
    auto sealed = box.seal(plain);
    REQUIRE(sealed.ok());
    CHECK(sealed->starts_with("v1:"));
    if (plain.size() > 4) CHECK(sealed->find(plain) == std::string::npos);
    auto opened = box.open(*sealed);
    REQUIRE(opened.ok());
    CHECK(*opened == plain);
  }
  // Fresh nonce per seal: the same plaintext never seals the same way twice.
  CHECK(*box.seal("same") != *box.seal("same"));
}

TEST_CASE("crypto: tampered, truncated or foreign ciphertext is refused without detail") {
  adapters::crypto::AesGcmSecretBox box(std::string(32, 'k'));
  adapters::crypto::AesGcmSecretBox other(std::string(32, 'o'));
  const std::string sealed = *box.seal("private key material");
  std::string flipped = sealed;
  flipped[10] = flipped[10] == 'A' ? 'B' : 'A';
  for (const std::string& bad : {flipped, sealed.substr(0, sealed.size() - 4), std::string("v1:"),
                                 std::string("plaintext"), std::string("v1:!!!!")}) {
    const auto opened = box.open(bad);
    REQUIRE_FALSE(opened.ok());
    CHECK(opened.error().code == domain::ErrorCode::invalid_argument);
    CHECK(opened.error().message.find("private") == std::string::npos);
  }
  CHECK_FALSE(other.open(sealed).ok());
}

TEST_CASE("crypto: base64 is canonical") {
  using adapters::crypto::base64Decode;
  using adapters::crypto::base64Encode;
  CHECK(base64Encode("") == "");
  CHECK(base64Encode("f") == "Zg==");
  CHECK(base64Encode("foobar") == "Zm9vYmFy");
  CHECK(base64Decode("Zm9vYg==") == "foob");
  CHECK_FALSE(base64Decode("Zm9vYg="));
  CHECK_FALSE(base64Decode("Zm9v!mFy"));
}

TEST_CASE("time zones: names of the tz database, never a path out of it") {
  certsteward::adapters::runtime::ZoneinfoTimeZones zones;
  CHECK(zones.exists("UTC"));
  CHECK(zones.exists("Europe/Zurich"));
  CHECK(zones.exists("America/Argentina/Buenos_Aires"));
  CHECK_FALSE(zones.exists("Europe/Atlantis"));
  CHECK_FALSE(zones.exists("../../etc/passwd"));
  CHECK_FALSE(zones.exists("/etc/localtime"));
  CHECK_FALSE(zones.exists("Europe//Zurich"));
  CHECK_FALSE(zones.exists(""));
  CHECK_FALSE(zones.exists("zone.tab"));  // a file of the directory, not a zone
}
