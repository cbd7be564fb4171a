// AWS Signature Version 4 against AWS's published SigV4 test suite (the get-vanilla family:
// credentials AKIDEXAMPLE, 2015-08-30T12:36:00Z, us-east-1, service "service"): the canonical
// request's hash, the derived signing key and the Authorization header of each case.
#include <doctest/doctest.h>

#include <string>

#include <certsteward/adapters/common/aws_sigv4.hpp>
#include <certsteward/domain/encoding.hpp>

using namespace certsteward::adapters::common;

namespace {

const AwsCredentials kExample{"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"};
const SigV4Scope kScope{"us-east-1", "service", "20150830T123600Z"};

SigV4Request vanilla(const std::string& method, const std::string& path = "/") {
  SigV4Request r;
  r.method = method;
  r.path = path;
  r.headers = {{"Host", "example.amazonaws.com"}, {"X-Amz-Date", "20150830T123600Z"}};
  return r;
}

std::string signatureOf(const std::string& authorization) {
  return authorization.substr(authorization.rfind('=') + 1);
}

}  // namespace

TEST_CASE("aws sigv4: get-vanilla, step by step") {
  const auto request = vanilla("GET");
  CHECK(sigV4CanonicalRequest(request) ==
        "GET\n/\n\nhost:example.amazonaws.com\nx-amz-date:20150830T123600Z\n\nhost;x-amz-date\n"
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(sigV4StringToSign(request, kScope) ==
        "AWS4-HMAC-SHA256\n20150830T123600Z\n20150830/us-east-1/service/aws4_request\n"
        "bb579772317eb040ac9ed261061d46c1f17a8133879d6129b6e1c25292927e63");
  CHECK(certsteward::domain::toHex(sigV4SigningKey(kExample.secret_access_key, kScope)) ==
        "938127b5336810ddb6a5d6af445fcac9e371f9ed418ed386b022aed82901be75");
  CHECK(sigV4Authorization(request, kScope, kExample) ==
        "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/service/aws4_request, "
        "SignedHeaders=host;x-amz-date, "
        "Signature=5fa00fa31553b73ebf1942676e86291e8372ff2a2260956d9b8aae1d763fbf31");
}

TEST_CASE("aws sigv4: the suite's other vanilla cases") {
  const struct {
    const char* name;
    SigV4Request request;
    const char* signature;
  } cases[] = {
      {"get-vanilla-query-order-key-case",
       [] {
         auto r = vanilla("GET");
         r.query = {{"Param2", "value2"}, {"Param1", "value1"}};  // sorted before signing
         return r;
       }(),
       "b97d918cfa904a5beff61c982a1b6f458b799221646efd99d3219ec94cdf2500"},
      {"post-vanilla", vanilla("POST"),
       "5da7c1a2acd57cee7505fc6676e4e544621c30862966e37dddb68e92efbe5d6b"},
      {"get-utf8", vanilla("GET", "/%E1%88%B4"),
       "8318018e0b0f223aa2bbf98705b62bb787dc9c0e678f255a891fd03141be5d85"},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    CHECK(signatureOf(sigV4Authorization(c.request, kScope, kExample)) == c.signature);
  }
  // Anything else signed changes the signature: another key, date, region, payload or header.
  const auto base = signatureOf(sigV4Authorization(vanilla("GET"), kScope, kExample));
  auto payload = vanilla("GET");
  payload.payload = "x";
  auto header = vanilla("GET");
  header.headers.emplace_back("X-Amz-Security-Token", "session");
  CHECK(signatureOf(sigV4Authorization(payload, kScope, kExample)) != base);
  CHECK(signatureOf(sigV4Authorization(header, kScope, kExample)) != base);
  CHECK(signatureOf(sigV4Authorization(vanilla("GET"), {"eu-west-1", "service", kScope.amz_date},
                                       kExample)) != base);
  CHECK(signatureOf(
            sigV4Authorization(vanilla("GET"), kScope, {"AKIDEXAMPLE", "another secret"})) != base);
}

TEST_CASE("aws sigv4: canonical headers and query encoding") {
  SigV4Request r = vanilla("GET");
  r.headers.emplace_back("My-Header1", "  value1   with  spaces ");
  r.headers.emplace_back("my-header1", "second");
  r.query = {{"name", "_acme-challenge.example.com."}, {"type", "TXT"}, {"a b", "c/d=e"}};
  const auto canonical = sigV4CanonicalRequest(r);
  CHECK(canonical.find("\nmy-header1:value1 with spaces,second\n") != std::string::npos);
  CHECK(canonical.find("\na%20b=c%2Fd%3De&name=_acme-challenge.example.com.&type=TXT\n") !=
        std::string::npos);
  CHECK(sigV4SignedHeaders(r) == "host;my-header1;x-amz-date");
  CHECK(awsUriEncode("AZaz09-_.~ /+*") == "AZaz09-_.~%20%2F%2B%2A");
}
