// AWS Signature Version 4 (https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_sigv.html):
// the canonical request, the string to sign, the derived signing key and the Authorization
// header, for the AWS APIs an adapter calls (Route 53). Checked against AWS's published SigV4
// test suite (tests/unit/aws_sigv4_test.cpp). No I/O; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace certsteward::adapters::common {

struct AwsCredentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token = {};  // temporary credentials (STS): sent as X-Amz-Security-Token
};

// What is signed of one request. `path` is the URI path as sent and signed as it is (each
// segment already percent-encoded once: right for Route 53's ids and names; services other than
// S3 want an already-encoded path encoded again, which this does not do); `query` holds decoded
// name/value pairs (they are encoded and sorted here); `headers` are the headers to sign (Host and
// X-Amz-Date at least), any case, values as sent.
struct SigV4Request {
  std::string method;
  std::string path = "/";
  std::vector<std::pair<std::string, std::string>> query = {};
  std::vector<std::pair<std::string, std::string>> headers = {};
  std::string payload;
};

struct SigV4Scope {
  std::string region;    // "us-east-1"
  std::string service;   // "route53"
  std::string amz_date;  // "20150830T123600Z" (UTC), the X-Amz-Date header's value
};

// RFC 3986 percent-encoding as SigV4 wants it: unreserved characters as they are, every other
// byte as %XY (upper-case hex).
std::string awsUriEncode(std::string_view text);

// The canonical request: method, path, sorted query, sorted lower-case headers with trimmed
// values, the signed header names, the payload's SHA-256 in hex.
std::string sigV4CanonicalRequest(const SigV4Request& request);
// "host;x-amz-date": the signed header names, lower case, sorted.
std::string sigV4SignedHeaders(const SigV4Request& request);
// "AWS4-HMAC-SHA256\n<date>\n<scope>\n<hex SHA-256 of the canonical request>".
std::string sigV4StringToSign(const SigV4Request& request, const SigV4Scope& scope);
// The derived key: HMAC chains over the date, region, service and "aws4_request" (raw bytes).
std::string sigV4SigningKey(std::string_view secretAccessKey, const SigV4Scope& scope);
// The Authorization header's value:
// "AWS4-HMAC-SHA256 Credential=<key id>/<scope>, SignedHeaders=..., Signature=<hex>".
std::string sigV4Authorization(const SigV4Request& request, const SigV4Scope& scope,
                               const AwsCredentials& credentials);
// Lower-case hex SHA-256 of `data`.
std::string sha256Hex(std::string_view data);

}  // namespace certsteward::adapters::common
