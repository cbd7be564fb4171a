// Does a leaf with its chain verify against the given roots? (OpenSSL, for tests.)
#pragma once

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509_vfy.h>

#include <string>

namespace certsteward::testing {

inline bool chainVerifies(const std::string& leafPem, const std::string& chainPem,
                          const std::string& rootsPem) {
  auto readAll = [](const std::string& pem) {
    STACK_OF(X509)* out = sk_X509_new_null();
    BIO* bio = BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size()));
    while (X509* x = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr))
      sk_X509_push(out, x);
    BIO_free(bio);
    ERR_clear_error();
    return out;
  };
  STACK_OF(X509)* roots = readAll(rootsPem);
  STACK_OF(X509)* leaf = readAll(leafPem);
  STACK_OF(X509)* chain = readAll(chainPem);
  X509_STORE* store = X509_STORE_new();
  for (int i = 0; i < sk_X509_num(roots); ++i)
    X509_STORE_add_cert(store, sk_X509_value(roots, i));
  X509_STORE_CTX* ctx = X509_STORE_CTX_new();
  const bool ok = sk_X509_num(leaf) == 1 &&
                  X509_STORE_CTX_init(ctx, store, sk_X509_value(leaf, 0), chain) == 1 &&
                  X509_verify_cert(ctx) == 1;
  X509_STORE_CTX_free(ctx);
  X509_STORE_free(store);
  for (auto* s : {roots, leaf, chain})
    sk_X509_pop_free(s, X509_free);
  return ok;
}

}  // namespace certsteward::testing
