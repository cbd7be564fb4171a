// Ed25519 licence keys through OpenSSL; the payload JSON is read with Boost.JSON.
#include <certsteward/adapters/crypto/ed25519_license_verifier.hpp>

#include <certsteward/domain/encoding.hpp>

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/sha.h>

#include <boost/json.hpp>

#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>
#include <certsteward/domain/audit.hpp>

namespace certsteward::adapters::crypto {
namespace {

domain::Error invalid(const std::string& why) {
  return domain::makeError(domain::ErrorCode::invalid_argument, "invalid licence key: " + why);
}

}  // namespace

Ed25519LicenseVerifier::Ed25519LicenseVerifier(std::string publicKeyPem) {
  if (publicKeyPem.empty()) return;
  BIO* bio = BIO_new_mem_buf(publicKeyPem.data(), static_cast<int>(publicKeyPem.size()));
  EVP_PKEY* key = PEM_read_bio_PUBKEY(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (key != nullptr && EVP_PKEY_get_id(key) != EVP_PKEY_ED25519) {
    EVP_PKEY_free(key);  // another kind of key: no licence could ever verify against it
    key = nullptr;
  }
  key_ = key;
}

bool Ed25519LicenseVerifier::isEd25519PublicKey(const std::string& pem) {
  return !pem.empty() && Ed25519LicenseVerifier(pem).hasKey();
}

Ed25519LicenseVerifier::~Ed25519LicenseVerifier() {
  EVP_PKEY_free(static_cast<EVP_PKEY*>(key_));
}

domain::Result<domain::License> Ed25519LicenseVerifier::verify(std::string_view licenseKey) const {
  if (key_ == nullptr) {
    return domain::makeError(domain::ErrorCode::failed_precondition,
                             "no licence public key is configured (license.public_key)");
  }
  const auto dot = licenseKey.find('.');
  if (licenseKey.size() > 8192 || dot == std::string_view::npos) return invalid("malformed");
  const auto payload = domain::base64UrlDecode(licenseKey.substr(0, dot));
  const auto signature = domain::base64UrlDecode(licenseKey.substr(dot + 1));
  if (!payload || !signature) return invalid("malformed");
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const bool ok =
      ctx != nullptr &&
      EVP_DigestVerifyInit(ctx, nullptr, nullptr, nullptr, static_cast<EVP_PKEY*>(key_)) == 1 &&
      EVP_DigestVerify(ctx, reinterpret_cast<const unsigned char*>(signature->data()),
                       signature->size(), reinterpret_cast<const unsigned char*>(payload->data()),
                       payload->size()) == 1;
  EVP_MD_CTX_free(ctx);
  if (!ok) return invalid("the signature does not verify");
  boost::system::error_code ec;
  const auto json = boost::json::parse(*payload, ec);
  if (ec || !json.is_object()) return invalid("the payload is not a JSON object");
  const auto& o = json.get_object();
  const auto integer = [&](const char* k) -> std::optional<std::int64_t> {
    const auto* v = o.if_contains(k);
    if (v == nullptr || !v->is_int64()) return std::nullopt;
    return v->get_int64();
  };
  const auto text = [&](const char* k) -> std::string {
    const auto* v = o.if_contains(k);
    return v != nullptr && v->is_string() ? std::string(v->get_string()) : std::string{};
  };
  const auto exp = integer("exp");
  if (!exp) return invalid("no expiry (exp)");
  domain::License license;
  license.plan_name = text("plan_name").empty() ? "Enterprise" : text("plan_name");
  license.cert_limit = integer("cert_limit");
  license.expires_at = domain::fromUnixSeconds(*exp);
  license.license_key = std::string(licenseKey);
  license.activation_id = text("license_id");
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(payload->data()), payload->size(), digest);
  license.fingerprint = domain::toHex(std::string_view(reinterpret_cast<char*>(digest), 16));
  license.license_mode = "offline";
  return license;
}

domain::Result<std::string> Ed25519LicenseVerifier::sign(const std::string& privateKeyPem,
                                                         const std::string& payloadJson) {
  BIO* bio = BIO_new_mem_buf(privateKeyPem.data(), static_cast<int>(privateKeyPem.size()));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio, nullptr, nullptr, nullptr);
  BIO_free(bio);
  if (key == nullptr)
    return domain::makeError(domain::ErrorCode::invalid_argument, "bad private key");
  std::string signature(64, '\0');
  std::size_t length = signature.size();
  EVP_MD_CTX* ctx = EVP_MD_CTX_new();
  const bool ok = ctx != nullptr && EVP_DigestSignInit(ctx, nullptr, nullptr, nullptr, key) == 1 &&
                  EVP_DigestSign(ctx, reinterpret_cast<unsigned char*>(signature.data()), &length,
                                 reinterpret_cast<const unsigned char*>(payloadJson.data()),
                                 payloadJson.size()) == 1;
  EVP_MD_CTX_free(ctx);
  EVP_PKEY_free(key);
  if (!ok) return domain::makeError(domain::ErrorCode::internal, "signing failed");
  signature.resize(length);
  return domain::base64UrlEncode(payloadJson) + "." + domain::base64UrlEncode(signature);
}

}  // namespace certsteward::adapters::crypto
