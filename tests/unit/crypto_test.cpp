// The secret box: round trips, tamper detection, and no secret in the sealed form. HMAC-SHA256:
// RFC 4231's vectors and OpenSSL's one-shot HMAC() over every key and message length that matters.
#include <doctest/doctest.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>
#include <certsteward/adapters/crypto/openssl_mac.hpp>
#include <certsteward/adapters/runtime/zoneinfo_time_zones.hpp>
#include <certsteward/domain/audit.hpp>
#include <certsteward/domain/encoding.hpp>

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

TEST_CASE("crypto: HMAC-SHA256 gives RFC 4231's answers") {
  const struct {
    std::string key, data, mac;
  } rows[] = {
      {std::string(20, '\x0b'), "Hi There",
       "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"},
      {"Jefe", "what do ya want for nothing?",
       "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"},
      {std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First",
       "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"},
      {std::string(131, '\xaa'),
       "This is a test using a larger than block-size key and a larger than block-size data. The "
       "key needs to be hashed before being used by the HMAC algorithm.",
       "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.data);
    adapters::crypto::OpenSslMac mac(row.key);
    CHECK(domain::toHex(mac.sign(row.data)) == row.mac);
  }
}

TEST_CASE("crypto: HMAC-SHA256 agrees with OpenSSL's HMAC() for keys and messages of any length") {
  std::string text;
  for (int i = 0; i < 300; ++i)
    text.push_back(static_cast<char>((i * 131 + 7) & 0xff));
  for (const std::size_t keyLength : {0, 1, 32, 63, 64, 65, 128, 200}) {
    const std::string key = text.substr(0, keyLength);
    adapters::crypto::OpenSslMac mac(key);
    for (std::size_t length = 0; length <= 260; length += (length < 130 ? 1 : 13)) {
      CAPTURE(keyLength);
      CAPTURE(length);
      const std::string message = text.substr(300 - length);
      unsigned char expected[EVP_MAX_MD_SIZE];
      unsigned int expectedLength = 0;
      static const unsigned char kEmpty = 0;
      HMAC(EVP_sha256(),
           key.empty() ? static_cast<const void*>(&kEmpty) : static_cast<const void*>(key.data()),
           static_cast<int>(key.size()), reinterpret_cast<const unsigned char*>(message.data()),
           message.size(), expected, &expectedLength);
      REQUIRE(expectedLength == 32);
      CHECK(mac.sign(message) == std::string(reinterpret_cast<const char*>(expected), 32));
    }
  }
}
