// OpenSslMac: HMAC-SHA256 under a fixed key (the audit signing key, and the keys of request
// fingerprints and CSRF binding). Keyed contexts are made once and reused (re-initialised with
// the same key, which skips the key schedule): about three times the rate of one-shot HMAC()
// on short messages. Thread-safe.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "ports/mac.hpp"

namespace certsteward::adapters::crypto {

class OpenSslMac : public ports::Mac {
 public:
  explicit OpenSslMac(std::string key);
  ~OpenSslMac() override;
  OpenSslMac(const OpenSslMac&) = delete;
  OpenSslMac& operator=(const OpenSslMac&) = delete;

  std::string sign(std::string_view message) const override;
  std::size_t signInto(std::string_view message, std::span<unsigned char, 64> out) const override;

 private:
  void* take() const;          // an initialised EVP_MAC_CTX*, from the pool or new
  void give(void* ctx) const;  // back to the pool

  std::string key_;
  void* prototype_ = nullptr;  // EVP_MAC_CTX* keyed once; others are duplicates of it
  mutable std::mutex mutex_;
  mutable std::vector<void*> idle_;
};

}  // namespace certsteward::adapters::crypto
