// The server's log output: spdlog's text lines, or one JSON object per line (log.format), and
// the access log of the API (log.access) in the same format.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include <certsteward/app/config.hpp>

namespace certsteward::adapters::rest {
struct AccessRecord;
}

namespace certsteward::app {

// Sets the level and the format of the default logger.
void configureLogging(const Config& config);

// The access log's writer (empty when log.access is off): request id, method, route pattern,
// status, duration and the acting user's id — never a body, header value or token.
std::function<void(const adapters::rest::AccessRecord&)> accessLog(const Config& config);

// `text` as a JSON string's content (quotes, backslashes and control characters escaped).
std::string jsonEscape(std::string_view text);

}  // namespace certsteward::app
