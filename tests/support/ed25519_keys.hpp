// A fresh Ed25519 key pair as PEM, for licence tests.
#pragma once

#include <openssl/evp.h>
#include <openssl/pem.h>

#include <string>
#include <utility>

namespace certsteward::testing {

inline std::pair<std::string, std::string> ed25519KeyPairPem() {  // {private, public}
  EVP_PKEY* key = EVP_PKEY_Q_keygen(nullptr, nullptr, "ED25519");
  const auto toPem = [&](bool priv) {
    BIO* bio = BIO_new(BIO_s_mem());
    if (priv) {
      PEM_write_bio_PrivateKey(bio, key, nullptr, nullptr, 0, nullptr, nullptr);
    } else {
      PEM_write_bio_PUBKEY(bio, key);
    }
    char* data = nullptr;
    const long n = BIO_get_mem_data(bio, &data);
    std::string pem(data, static_cast<std::size_t>(n));
    BIO_free(bio);
    return pem;
  };
  auto pair = std::make_pair(toPem(true), toPem(false));
  EVP_PKEY_free(key);
  return pair;
}

}  // namespace certsteward::testing
