#include <certsteward/adapters/dns/json_api.hpp>

#include <algorithm>
#include <chrono>
#include <thread>

namespace certsteward::adapters::dns {

domain::Result<JsonAnswer> callJsonApi(std::string_view method, const common::HttpRequest& request,
                                       int maxRetries) {
  for (int attempt = 0;; ++attempt) {
    auto answer = method == "GET" ? common::getHttp(request) : common::sendHttp(method, request);
    if (!answer) return answer.error();
    if (answer->status == 429 && attempt < maxRetries) {
      const long long wait =
          answer->retry_after_seconds > 0 ? answer->retry_after_seconds : (1LL << attempt);
      std::this_thread::sleep_for(std::chrono::seconds{std::clamp(wait, 1LL, 10LL)});
      continue;
    }
    JsonAnswer out{answer->status, {}};
    boost::system::error_code ec;
    auto doc = boost::json::parse(answer->body, ec);
    if (!ec && doc.is_object()) out.doc = std::move(doc.as_object());
    return out;
  }
}

common::HttpRequest bearerJsonRequest(std::string url, const std::string& token, std::string body,
                                      const std::string& caPem, std::chrono::milliseconds timeout,
                                      const common::Outbound* outbound) {
  common::HttpRequest request;
  request.url = std::move(url);
  request.headers = {"Authorization: Bearer " + token, "Accept: application/json"};
  if (!body.empty()) request.headers.emplace_back("Content-Type: application/json");
  request.body = std::move(body);
  request.ca_pem = caPem;
  request.timeout = timeout;
  request.response_limit = 4 * 1024 * 1024;
  request.secrets = {token};
  request.outbound = outbound;
  return request;
}

std::string jsonText(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace certsteward::adapters::dns
