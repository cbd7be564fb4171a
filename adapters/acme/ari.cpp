// RFC 9773 identifiers and windows.
#include <certsteward/adapters/acme/ari.hpp>

#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include <boost/json.hpp>

#include <algorithm>
#include <memory>

#include <certsteward/domain/encoding.hpp>

namespace certsteward::adapters::acme {

using domain::ErrorCode;
using domain::makeError;
namespace json = boost::json;

std::string ariCertId(std::string_view authorityKeyId, std::string_view serialContent) {
  return domain::base64UrlEncode(authorityKeyId) + "." + domain::base64UrlEncode(serialContent);
}

domain::Result<std::string> ariCertId(std::string_view certificatePem) {
  std::unique_ptr<BIO, decltype(&BIO_free)> bio(
      BIO_new_mem_buf(certificatePem.data(), static_cast<int>(certificatePem.size())), BIO_free);
  std::unique_ptr<X509, decltype(&X509_free)> cert(
      bio ? PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr) : nullptr, X509_free);
  if (!cert) return makeError(ErrorCode::invalid_argument, "not a PEM certificate");
  const ASN1_OCTET_STRING* keyId = X509_get0_authority_key_id(cert.get());
  if (keyId == nullptr) {
    return makeError(ErrorCode::failed_precondition,
                     "the certificate has no Authority Key Identifier key id");
  }
  // The serial's DER INTEGER without its tag and length: the content octets, with the leading
  // zero a positive number whose top bit is set carries.
  unsigned char* der = nullptr;
  const int derLength = i2d_ASN1_INTEGER(X509_get0_serialNumber(cert.get()), &der);
  if (derLength <= 2 || der == nullptr) {
    OPENSSL_free(der);
    return makeError(ErrorCode::invalid_argument, "the certificate's serial cannot be encoded");
  }
  std::size_t header = 2;
  if ((der[1] & 0x80) != 0) header += der[1] & 0x7f;  // long-form length
  const std::string serial(reinterpret_cast<const char*>(der) + header,
                           static_cast<std::size_t>(derLength) - header);
  OPENSSL_free(der);
  const std::string aki(reinterpret_cast<const char*>(ASN1_STRING_get0_data(keyId)),
                        static_cast<std::size_t>(ASN1_STRING_length(keyId)));
  return ariCertId(aki, serial);
}

domain::Result<RenewalWindow> parseRenewalInfo(std::string_view body) {
  boost::system::error_code ec;
  const auto doc = json::parse(body, ec);
  const auto bad = [](const std::string& why) {
    return makeError(ErrorCode::invalid_argument, "the renewalInfo response " + why);
  };
  if (ec || !doc.is_object()) return bad("is not a JSON object");
  const auto* window = doc.as_object().if_contains("suggestedWindow");
  if (window == nullptr || !window->is_object()) return bad("has no suggestedWindow");
  const auto instant = [&](const char* key) -> std::optional<domain::Timestamp> {
    const auto* v = window->as_object().if_contains(key);
    if (v == nullptr || !v->is_string()) return std::nullopt;
    return domain::parseTimestamp(std::string_view(v->as_string()));
  };
  const auto start = instant("start");
  const auto end = instant("end");
  if (!start || !end) return bad("has no RFC 3339 start and end");
  if (*end <= *start) return bad("has a window that ends before it starts");
  RenewalWindow out{*start, *end, {}};
  if (const auto* url = doc.as_object().if_contains("explanationURL");
      url != nullptr && url->is_string()) {
    out.explanation_url = std::string(url->as_string());
  }
  return out;
}

domain::Timestamp pickRenewalTime(const RenewalWindow& window, double fraction) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  const auto span = window.end - window.start;
  auto offset = domain::Duration{
      static_cast<domain::Duration::rep>(static_cast<double>(span.count()) * fraction)};
  if (offset >= span) offset = span - domain::Duration{1};  // inside the window, never its end
  return window.start + offset;
}

}  // namespace certsteward::adapters::acme
