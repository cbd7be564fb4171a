// One call to a DNS provider's JSON API through the HTTP client (its rules: https or loopback
// http, the outbound policy, secrets masked), with a rate-limited answer (429) waited out as its
// Retry-After says (else 1, 2, 4 s; never more than 10 s at a time, at most `maxRetries` times),
// and the answer's body parsed (an object; empty when it is not JSON). Included only by the
// providers' sources (it brings Boost.JSON).
#pragma once

#include <boost/json.hpp>

#include <chrono>
#include <string>
#include <string_view>

#include <certsteward/adapters/common/http_client.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::adapters::dns {

struct JsonAnswer {
  long status = 0;
  boost::json::object doc;
};

domain::Result<JsonAnswer> callJsonApi(std::string_view method, const common::HttpRequest& request,
                                       int maxRetries);

// A request to a JSON API that takes a bearer token: Accept (and, with a body, Content-Type)
// application/json, the token masked wherever libcurl's words are quoted, answers up to 4 MiB.
common::HttpRequest bearerJsonRequest(std::string url, const std::string& token, std::string body,
                                      const std::string& caPem, std::chrono::milliseconds timeout,
                                      const common::Outbound* outbound);

// The string at `key` of `o`, or "".
std::string jsonText(const boost::json::object& o, std::string_view key);

}  // namespace certsteward::adapters::dns
