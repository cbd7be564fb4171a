// Download bundles: the ZIP container (read back by a small independent reader), the encrypted
// private key and PKCS#12 (read back with OpenSSL and the password; refused without it).
#include <doctest/doctest.h>

#include <openssl/err.h>
#include <openssl/pkcs12.h>

#include <certsteward/adapters/crypto/certificate_bundle.hpp>
#include <certsteward/adapters/rest/zip_archive.hpp>
#include "support/test_certificates.hpp"
#include "support/zip_reader.hpp"

using namespace certsteward;
using adapters::rest::ZipEntry;

using testing::le;
using testing::readZip;

TEST_CASE("zip: CRC-32 matches the standard check values") {
  CHECK(adapters::rest::crc32("") == 0U);
  CHECK(adapters::rest::crc32("123456789") == 0xCBF43926U);
  CHECK(adapters::rest::crc32("The quick brown fox jumps over the lazy dog") == 0x414FA339U);
}

TEST_CASE("zip: entries come back whole, in order, with their dates") {
  const std::vector<ZipEntry> entries{
      {"cert.pem", "leaf\n"}, {"empty.txt", ""}, {"bin", std::string("\0\xff\x01", 3)}};
  const std::string zip = adapters::rest::makeZip(entries, 1'763'769'600);  // 2025-11-22 00:00
  const auto files = readZip(zip);
  REQUIRE(files.size() == 3);
  for (const auto& e : entries)
    CHECK(files.at(e.name) == e.data);
  // MS-DOS date of the first local header: (2025-1980)<<9 | 11<<5 | 22.
  CHECK(le(zip, 12, 2) == ((45U << 9) | (11U << 5) | 22U));
  CHECK(readZip(adapters::rest::makeZip({}, 0)).empty());
}

TEST_CASE("bundle: the exported key is encrypted and opens only with the password") {
  const auto m = testing::makeTestMaterial("www.example.test");
  auto encrypted = adapters::crypto::encryptPrivateKeyPem(m.private_key_pem, "s3cret-pass");
  REQUIRE(encrypted.ok());
  CHECK(encrypted->starts_with("-----BEGIN ENCRYPTED PRIVATE KEY-----"));
  CHECK(encrypted->find("BEGIN PRIVATE KEY") == std::string::npos);
  auto readWith = [&](const char* password) {
    BIO* bio = BIO_new_mem_buf(encrypted->data(), static_cast<int>(encrypted->size()));
    EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, const_cast<char*>(password));
    BIO_free(bio);
    ERR_clear_error();
    const bool ok = key != nullptr;
    EVP_PKEY_free(key);
    return ok;
  };
  CHECK(readWith("s3cret-pass"));
  CHECK_FALSE(readWith("wrong-pass"));

  auto broken = adapters::crypto::encryptPrivateKeyPem("not a key", "s3cret-pass");
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().code == domain::ErrorCode::internal);
}

TEST_CASE("bundle: PKCS#12 holds key, leaf and chain under the password") {
  const auto m = testing::makeTestMaterial("api.example.test");
  auto p12 = adapters::crypto::makePkcs12(m.private_key_pem, m.certificate_pem, m.chain_pem,
                                          "p12-password", "api.example.test");
  REQUIRE(p12.ok());
  auto parse = [&](const char* password, EVP_PKEY** key, X509** cert, STACK_OF(X509) * *ca) {
    const auto* data = reinterpret_cast<const unsigned char*>(p12->data());
    PKCS12* parsed = d2i_PKCS12(nullptr, &data, static_cast<long>(p12->size()));
    REQUIRE(parsed != nullptr);
    const bool ok = PKCS12_parse(parsed, password, key, cert, ca) == 1;
    PKCS12_free(parsed);
    ERR_clear_error();
    return ok;
  };
  EVP_PKEY* key = nullptr;
  X509* cert = nullptr;
  STACK_OF(X509)* ca = nullptr;
  REQUIRE(parse("p12-password", &key, &cert, &ca));
  REQUIRE(key != nullptr);
  REQUIRE(cert != nullptr);
  CHECK(X509_check_private_key(cert, key) == 1);
  REQUIRE(ca != nullptr);
  CHECK(sk_X509_num(ca) == 1);
  EVP_PKEY_free(key);
  X509_free(cert);
  sk_X509_pop_free(ca, X509_free);
  key = nullptr;
  cert = nullptr;
  ca = nullptr;
  CHECK_FALSE(parse("wrong", &key, &cert, &ca));

  CHECK_FALSE(adapters::crypto::makePkcs12(m.private_key_pem, "garbage", "", "pw", "x").ok());
}
