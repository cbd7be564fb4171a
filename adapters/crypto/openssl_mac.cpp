// HMAC-SHA256 through OpenSSL 3's EVP_MAC, with keyed contexts reused across messages.
#include "adapters/crypto/openssl_mac.hpp"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include <stdexcept>

namespace certsteward::adapters::crypto {
namespace {

[[noreturn]] void broken() {
  // Only a broken OpenSSL installation gets here; the port promises no failure.
  throw std::runtime_error("HMAC-SHA256 failed");
}

}  // namespace

OpenSslMac::OpenSslMac(std::string key) : key_(std::move(key)) {
  EVP_MAC* mac = EVP_MAC_fetch(nullptr, "HMAC", nullptr);
  if (mac == nullptr) broken();
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_new(mac);
  EVP_MAC_free(mac);  // the context keeps its own reference
  char digest[] = "SHA256";
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, digest, 0), OSSL_PARAM_END};
  // An empty key is valid HMAC; OpenSSL wants a non-null pointer for it.
  static const unsigned char kEmpty = 0;
  const auto* keyBytes =
      key_.empty() ? &kEmpty : reinterpret_cast<const unsigned char*>(key_.data());
  if (ctx == nullptr || EVP_MAC_init(ctx, keyBytes, key_.size(), params) != 1) {
    EVP_MAC_CTX_free(ctx);
    broken();
  }
  prototype_ = ctx;
}

OpenSslMac::~OpenSslMac() {
  for (void* ctx : idle_)
    EVP_MAC_CTX_free(static_cast<EVP_MAC_CTX*>(ctx));
  EVP_MAC_CTX_free(static_cast<EVP_MAC_CTX*>(prototype_));
}

void* OpenSslMac::take() const {
  {
    std::lock_guard lock(mutex_);
    if (!idle_.empty()) {
      void* ctx = idle_.back();
      idle_.pop_back();
      return ctx;
    }
  }
  EVP_MAC_CTX* ctx = EVP_MAC_CTX_dup(static_cast<EVP_MAC_CTX*>(prototype_));
  if (ctx == nullptr) broken();
  return ctx;
}

void OpenSslMac::give(void* ctx) const {
  std::lock_guard lock(mutex_);
  idle_.push_back(ctx);
}

std::size_t OpenSslMac::signInto(std::string_view message,
                                 std::span<unsigned char, 64> out) const {
  auto* ctx = static_cast<EVP_MAC_CTX*>(take());
  std::size_t length = 0;
  // A NULL key re-initialises with the key already set (no new key schedule).
  const bool ok = EVP_MAC_init(ctx, nullptr, 0, nullptr) == 1 &&
                  EVP_MAC_update(ctx, reinterpret_cast<const unsigned char*>(message.data()),
                                 message.size()) == 1 &&
                  EVP_MAC_final(ctx, out.data(), &length, out.size()) == 1;
  give(ctx);
  if (!ok) broken();
  return length;
}

std::string OpenSslMac::sign(std::string_view message) const {
  unsigned char out[64];
  const std::size_t length = signInto(message, out);
  return std::string(reinterpret_cast<const char*>(out), length);
}

}  // namespace certsteward::adapters::crypto
