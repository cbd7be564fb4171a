// Encrypted key export and PKCS#12 through OpenSSL; every OpenSSL object is freed on every path.
#include <certsteward/adapters/crypto/certificate_bundle.hpp>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/pkcs12.h>
#include <openssl/x509.h>

#include <memory>

namespace certsteward::adapters::crypto {
namespace {

struct BioFree {
  void operator()(BIO* b) const { BIO_free(b); }
};
struct KeyFree {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct X509Free {
  void operator()(X509* x) const { X509_free(x); }
};
struct StackFree {
  void operator()(STACK_OF(X509) * s) const { sk_X509_pop_free(s, X509_free); }
};
struct P12Free {
  void operator()(PKCS12* p) const { PKCS12_free(p); }
};
using Bio = std::unique_ptr<BIO, BioFree>;

domain::Error failure(const char* what) {
  ERR_clear_error();  // OpenSSL's queue may name internals; the caller gets our words only
  return domain::makeError(domain::ErrorCode::internal, what);
}

Bio readBio(std::string_view text) {
  return Bio(BIO_new_mem_buf(text.data(), static_cast<int>(text.size())));
}

std::unique_ptr<EVP_PKEY, KeyFree> readKey(std::string_view pem) {
  auto bio = readBio(pem);
  return std::unique_ptr<EVP_PKEY, KeyFree>(
      bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr) : nullptr);
}

std::string drain(BIO* bio) {
  char* data = nullptr;
  const long size = BIO_get_mem_data(bio, &data);
  return size > 0 ? std::string(data, static_cast<std::size_t>(size)) : std::string();
}

}  // namespace

domain::Result<std::string> encryptPrivateKeyPem(std::string_view keyPem,
                                                 std::string_view password) {
  auto key = readKey(keyPem);
  if (!key) return failure("the stored private key cannot be read");
  Bio out(BIO_new(BIO_s_mem()));
  if (!out ||
      PEM_write_bio_PKCS8PrivateKey(out.get(), key.get(), EVP_aes_256_cbc(), password.data(),
                                    static_cast<int>(password.size()), nullptr, nullptr) != 1) {
    return failure("the private key could not be encrypted");
  }
  return drain(out.get());
}

domain::Result<std::string> makePkcs12(std::string_view keyPem, std::string_view certificatePem,
                                       std::string_view chainPem, std::string_view password,
                                       const std::string& friendlyName) {
  auto key = readKey(keyPem);
  if (!key) return failure("the stored private key cannot be read");
  auto leafBio = readBio(certificatePem);
  std::unique_ptr<X509, X509Free> leaf(
      leafBio ? PEM_read_bio_X509(leafBio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!leaf) return failure("the stored certificate cannot be read");
  std::unique_ptr<STACK_OF(X509), StackFree> chain(sk_X509_new_null());
  if (!chain) return failure("out of memory");
  if (!chainPem.empty()) {
    auto chainBio = readBio(chainPem);
    while (chainBio) {
      X509* next = PEM_read_bio_X509(chainBio.get(), nullptr, nullptr, nullptr);
      if (next == nullptr) break;
      if (sk_X509_push(chain.get(), next) == 0) {
        X509_free(next);
        return failure("out of memory");
      }
    }
    ERR_clear_error();  // the loop ends on "no start line"
  }
  // Password as a C string: PKCS12_create reads it with strlen.
  const std::string pass(password);
  // nid 0 / iter 0 / mac_iter 0 / keytype 0: OpenSSL 3 defaults (AES-256-CBC + PBKDF2, SHA-256).
  std::unique_ptr<PKCS12, P12Free> p12(PKCS12_create(pass.c_str(), friendlyName.c_str(), key.get(),
                                                     leaf.get(), chain.get(), 0, 0, 0, 0, 0));
  if (!p12) return failure("the PKCS#12 file could not be made");
  Bio out(BIO_new(BIO_s_mem()));
  if (!out || i2d_PKCS12_bio(out.get(), p12.get()) != 1) {
    return failure("the PKCS#12 file could not be written");
  }
  return drain(out.get());
}

}  // namespace certsteward::adapters::crypto
