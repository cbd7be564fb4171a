// HMAC-SHA256 (RFC 2104) from precomputed inner and outer SHA-256 states. OpenSSL 3 marks its
// SHA256_* functions deprecated in favour of EVP; they remain the direct route to its assembly
// (SHA-NI), without EVP_MAC's per-message context reset, which costs as much as hashing a short
// audit message. Only this file uses them.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <certsteward/adapters/crypto/openssl_mac.hpp>

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <cstring>

namespace certsteward::adapters::crypto {
namespace {

static_assert(sizeof(SHA256_CTX) <= 128, "SHA256_CTX no longer fits the reserved state");
constexpr std::size_t kBlock = SHA256_CBLOCK;  // 64

SHA256_CTX load(const std::array<unsigned char, 128>& bytes) {
  SHA256_CTX ctx;
  std::memcpy(&ctx, bytes.data(), sizeof ctx);
  return ctx;
}

}  // namespace

OpenSslMac::OpenSslMac(std::string key) {
  unsigned char block[kBlock] = {};
  if (key.size() > kBlock) {
    SHA256(reinterpret_cast<const unsigned char*>(key.data()), key.size(), block);
  } else if (!key.empty()) {
    std::memcpy(block, key.data(), key.size());
  }
  unsigned char pad[kBlock];
  SHA256_CTX ctx;
  for (std::size_t i = 0; i < kBlock; ++i)
    pad[i] = static_cast<unsigned char>(block[i] ^ 0x36);
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, pad, kBlock);
  std::memcpy(inner_.data(), &ctx, sizeof ctx);
  for (std::size_t i = 0; i < kBlock; ++i)
    pad[i] = static_cast<unsigned char>(block[i] ^ 0x5c);
  SHA256_Init(&ctx);
  SHA256_Update(&ctx, pad, kBlock);
  std::memcpy(outer_.data(), &ctx, sizeof ctx);
  OPENSSL_cleanse(block, sizeof block);
  OPENSSL_cleanse(pad, sizeof pad);
  OPENSSL_cleanse(&ctx, sizeof ctx);
}

std::size_t OpenSslMac::signInto(std::string_view message, std::span<unsigned char, 64> out) const {
  SHA256_CTX ctx = load(inner_);
  unsigned char innerDigest[SHA256_DIGEST_LENGTH];
  SHA256_Update(&ctx, message.data(), message.size());
  SHA256_Final(innerDigest, &ctx);
  ctx = load(outer_);
  SHA256_Update(&ctx, innerDigest, sizeof innerDigest);
  SHA256_Final(out.data(), &ctx);
  return SHA256_DIGEST_LENGTH;
}

std::string OpenSslMac::sign(std::string_view message) const {
  unsigned char out[64];
  const std::size_t length = signInto(message, out);
  return std::string(reinterpret_cast<const char*>(out), length);
}

}  // namespace certsteward::adapters::crypto
