// AES-256-GCM through OpenSSL EVP; errors become domain errors here, at the boundary.
#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>

#include <certsteward/domain/encoding.hpp>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <memory>

namespace certsteward::adapters::crypto {
namespace {

constexpr std::string_view kPrefix = "v1:";
constexpr int kNonceSize = 12;
constexpr int kTagSize = 16;
constexpr std::string_view kKeyLabel = "certsteward secret box v1";

using CipherCtx = std::unique_ptr<EVP_CIPHER_CTX, decltype(&EVP_CIPHER_CTX_free)>;

domain::Error openFailure() {
  return domain::makeError(domain::ErrorCode::invalid_argument,
                           "stored secret cannot be decrypted (tampered, or sealed under another "
                           "key)");
}

const unsigned char* bytes(std::string_view s) {
  return reinterpret_cast<const unsigned char*>(s.data());
}

}  // namespace

AesGcmSecretBox::AesGcmSecretBox(std::string_view secret) {
  unsigned int length = 0;
  HMAC(EVP_sha256(), kKeyLabel.data(), static_cast<int>(kKeyLabel.size()), bytes(secret),
       secret.size(), key_.data(), &length);
}

domain::Result<std::string> AesGcmSecretBox::seal(std::string_view plaintext) const {
  std::string blob(kNonceSize + plaintext.size() + kTagSize, '\0');
  auto* out = reinterpret_cast<unsigned char*>(blob.data());
  CipherCtx ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  int len = 0;
  if (!ctx || RAND_bytes(out, kNonceSize) != 1 ||
      EVP_EncryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(), out) != 1 ||
      EVP_EncryptUpdate(ctx.get(), out + kNonceSize, &len, bytes(plaintext),
                        static_cast<int>(plaintext.size())) != 1 ||
      EVP_EncryptFinal_ex(ctx.get(), out + kNonceSize + len, &len) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_GET_TAG, kTagSize,
                          out + kNonceSize + plaintext.size()) != 1) {
    return domain::makeError(domain::ErrorCode::internal, "encryption failed");
  }
  return std::string(kPrefix) + domain::base64Encode(blob);
}

domain::Result<std::string> AesGcmSecretBox::open(std::string_view sealed) const {
  if (!sealed.starts_with(kPrefix)) return openFailure();
  const auto blob = domain::base64Decode(sealed.substr(kPrefix.size()));
  if (!blob || blob->size() < static_cast<std::size_t>(kNonceSize + kTagSize)) {
    return openFailure();
  }
  const auto* in = bytes(*blob);
  const std::size_t cipherLen = blob->size() - kNonceSize - kTagSize;
  std::string plain(cipherLen, '\0');
  auto* out = reinterpret_cast<unsigned char*>(plain.data());
  CipherCtx ctx(EVP_CIPHER_CTX_new(), &EVP_CIPHER_CTX_free);
  int len = 0;
  std::array<unsigned char, kTagSize> tag{};
  std::copy(in + kNonceSize + cipherLen, in + blob->size(), tag.begin());
  if (!ctx || EVP_DecryptInit_ex(ctx.get(), EVP_aes_256_gcm(), nullptr, key_.data(), in) != 1 ||
      EVP_DecryptUpdate(ctx.get(), out, &len, in + kNonceSize, static_cast<int>(cipherLen)) != 1 ||
      EVP_CIPHER_CTX_ctrl(ctx.get(), EVP_CTRL_GCM_SET_TAG, kTagSize, tag.data()) != 1 ||
      EVP_DecryptFinal_ex(ctx.get(), out + len, &len) != 1) {
    return openFailure();
  }
  return plain;
}

}  // namespace certsteward::adapters::crypto
