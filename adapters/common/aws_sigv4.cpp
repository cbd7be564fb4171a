#include <certsteward/adapters/common/aws_sigv4.hpp>

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>

#include <certsteward/domain/encoding.hpp>

namespace certsteward::adapters::common {
namespace {

std::string hmac(std::string_view key, std::string_view message) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(message.data()), message.size(), out, &length);
  return std::string(reinterpret_cast<const char*>(out), length);
}

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

// A header value as signed: leading and trailing spaces removed, inner runs of spaces as one.
std::string trimmed(std::string_view value) {
  std::string out;
  bool space = false;
  for (const char c : value) {
    if (c == ' ' || c == '\t') {
      space = !out.empty();
      continue;
    }
    if (space) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

std::vector<std::pair<std::string, std::string>> canonicalHeaders(const SigV4Request& request) {
  std::vector<std::pair<std::string, std::string>> headers;
  for (const auto& [name, value] : request.headers)
    headers.emplace_back(lower(name), trimmed(value));
  std::stable_sort(headers.begin(), headers.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return headers;
}

std::string dateOf(const SigV4Scope& scope) {
  return scope.amz_date.substr(0, 8);
}

std::string credentialScope(const SigV4Scope& scope) {
  return dateOf(scope) + "/" + scope.region + "/" + scope.service + "/aws4_request";
}

}  // namespace

std::string sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), digest);
  return domain::toHex(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

std::string awsUriEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
      out += ch;
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 0xf];
    }
  }
  return out;
}

std::string sigV4SignedHeaders(const SigV4Request& request) {
  std::string out;
  std::string last;
  for (const auto& [name, value] : canonicalHeaders(request)) {
    if (name == last) continue;  // a repeated header is signed once, its values joined
    out += (out.empty() ? "" : ";") + name;
    last = name;
  }
  return out;
}

std::string sigV4CanonicalRequest(const SigV4Request& request) {
  std::vector<std::pair<std::string, std::string>> query;
  for (const auto& [name, value] : request.query)
    query.emplace_back(awsUriEncode(name), awsUriEncode(value));
  std::sort(query.begin(), query.end());
  std::string canonicalQuery;
  for (const auto& [name, value] : query)
    canonicalQuery += (canonicalQuery.empty() ? "" : "&") + name + "=" + value;
  std::string headerLines;
  const auto headers = canonicalHeaders(request);
  for (std::size_t i = 0; i < headers.size(); ++i) {
    if (i > 0 && headers[i].first == headers[i - 1].first) {
      headerLines.pop_back();  // the newline: repeated values go on the same line
      headerLines += "," + headers[i].second + "\n";
      continue;
    }
    headerLines += headers[i].first + ":" + headers[i].second + "\n";
  }
  return request.method + "\n" + (request.path.empty() ? "/" : request.path) + "\n" +
         canonicalQuery + "\n" + headerLines + "\n" + sigV4SignedHeaders(request) + "\n" +
         sha256Hex(request.payload);
}

std::string sigV4StringToSign(const SigV4Request& request, const SigV4Scope& scope) {
  return "AWS4-HMAC-SHA256\n" + scope.amz_date + "\n" + credentialScope(scope) + "\n" +
         sha256Hex(sigV4CanonicalRequest(request));
}

std::string sigV4SigningKey(std::string_view secretAccessKey, const SigV4Scope& scope) {
  const std::string date = hmac("AWS4" + std::string(secretAccessKey), dateOf(scope));
  const std::string region = hmac(date, scope.region);
  const std::string service = hmac(region, scope.service);
  return hmac(service, "aws4_request");
}

std::string sigV4Authorization(const SigV4Request& request, const SigV4Scope& scope,
                               const AwsCredentials& credentials) {
  const std::string key = sigV4SigningKey(credentials.secret_access_key, scope);
  const std::string signature = domain::toHex(hmac(key, sigV4StringToSign(request, scope)));
  return "AWS4-HMAC-SHA256 Credential=" + credentials.access_key_id + "/" + credentialScope(scope) +
         ", SignedHeaders=" + sigV4SignedHeaders(request) + ", Signature=" + signature;
}

}  // namespace certsteward::adapters::common
