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

std::string jsonText(const boost::json::object& o, std::string_view key) {
  const auto* v = o.if_contains(key);
  return v != nullptr && v->is_string() ? std::string(v->as_string()) : std::string();
}

}  // namespace certsteward::adapters::dns
