// The cryptography of ACME (RFC 8555, RFC 7515/7518/7638): account and certificate keys, JWK
// and its thumbprint, JOSE signatures (ES256, ES384, RS256; HS256 for External Account
// Binding), CSRs and a look into issued certificates. OpenSSL 3; failures come back as domain
// errors that never carry key material.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::acme {

class KeyPair {
 public:
  static domain::Result<KeyPair> generate(domain::KeyType type);
  static domain::Result<KeyPair> fromPem(std::string_view pem);

  std::string privatePem() const;
  // The public JWK with exactly the required members in lexicographic order (RFC 7638), so
  // that it is also the thumbprint input.
  std::string jwk() const;
  std::string thumbprint() const;  // base64url(SHA-256(jwk()))
  std::string alg() const;         // "ES256", "ES384" or "RS256"
  // The JOSE signature of `input` (raw r||s for ECDSA).
  domain::Result<std::string> sign(std::string_view input) const;
  void* native() const { return key_.get(); }  // EVP_PKEY*

 private:
  struct Free {
    void operator()(void* k) const;
  };
  explicit KeyPair(void* key) : key_(key) {}
  std::unique_ptr<void, Free> key_;
};

std::string sha256(std::string_view data);
std::string hmacSha256(std::string_view key, std::string_view data);

// An IP address literal (IPv4 or IPv6): an `ip` identifier (RFC 8738), not a DNS name.
bool isIpAddress(const std::string& name);

// A DER CSR for `names` (all are SANs: IP addresses as iPAddress, the rest as dNSName; the
// first, when a DNS name, is also the subject's CN), signed by `key`.
domain::Result<std::string> makeCsr(const KeyPair& key, const std::vector<std::string>& names);

struct CertificateFacts {
  std::string serial_hex;  // lower-case hex, no separators
  domain::Timestamp not_before{};
  domain::Timestamp not_after{};
  std::vector<std::string> dns_names;
};
domain::Result<CertificateFacts> inspectCertificate(std::string_view pem);

// The issuer common name of the last (topmost) certificate of a PEM chain; "" when there is none.
std::string topIssuerName(std::string_view chainPem);

// "leaf PEM" and "the rest" of a PEM chain as the CA sends it.
std::pair<std::string, std::string> splitChain(std::string_view pem);
domain::Result<std::string> pemToDer(std::string_view pem);

}  // namespace certsteward::adapters::acme
