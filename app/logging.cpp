// JSON lines for spdlog: a formatter that writes {"time","level","message"} (or, for the access
// logger, the request's own fields) per line.
#include <certsteward/app/logging.hpp>

#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/domain/time.hpp>

#include <spdlog/pattern_formatter.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <memory>

namespace certsteward::app {
namespace {

// The access logger's messages are already "key":value pairs; every other message is text.
class JsonFormatter : public spdlog::formatter {
 public:
  void format(const spdlog::details::log_msg& msg, spdlog::memory_buf_t& dest) override {
    const std::string_view payload(msg.payload.data(), msg.payload.size());
    std::string line =
        "{\"time\":\"" +
        domain::formatTimestamp(std::chrono::time_point_cast<domain::Duration>(msg.time)) +
        "\",\"level\":\"" +
        std::string(spdlog::level::to_string_view(msg.level).data(),
                    spdlog::level::to_string_view(msg.level).size()) +
        "\"";
    if (std::string_view(msg.logger_name.data(), msg.logger_name.size()) == "access") {
      line += ",\"log\":\"access\"," + std::string(payload) + "}\n";
    } else {
      line += ",\"message\":\"" + jsonEscape(payload) + "\"}\n";
    }
    dest.append(line.data(), line.data() + line.size());
  }
  std::unique_ptr<spdlog::formatter> clone() const override {
    return std::make_unique<JsonFormatter>();
  }
};

}  // namespace

std::string jsonEscape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out.push_back('\\');
      out.push_back(ch);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out.push_back(ch);
    }
  }
  return out;
}

void configureLogging(const Config& config) {
  spdlog::set_level(spdlog::level::from_str(config.log_level));
  if (config.log_format == "json") spdlog::set_formatter(std::make_unique<JsonFormatter>());
}

std::function<void(const adapters::rest::AccessRecord&)> accessLog(const Config& config) {
  if (!config.log_access) return {};
  // Its own logger on the default logger's sinks, so it follows the same format and output.
  auto logger = std::make_shared<spdlog::logger>(
      "access", spdlog::default_logger()->sinks().begin(), spdlog::default_logger()->sinks().end());
  if (config.log_format == "json") logger->set_formatter(std::make_unique<JsonFormatter>());
  logger->set_level(spdlog::level::from_str(config.log_level));  // info lines: off at warn
  const bool json = config.log_format == "json";
  return [logger, json](const adapters::rest::AccessRecord& r) {
    char duration[32];
    std::snprintf(duration, sizeof duration, "%.3f", r.duration_ms);
    if (json) {
      logger->info(
          "\"request_id\":\"{}\",\"method\":\"{}\",\"route\":\"{}\",\"status\":{},"
          "\"duration_ms\":{},\"actor\":\"{}\",\"client_ip\":\"{}\"",
          jsonEscape(r.request_id), jsonEscape(r.method), jsonEscape(r.route), r.status, duration,
          jsonEscape(r.actor), jsonEscape(r.client_ip));
    } else {
      logger->info("{} {} {} {} {}ms actor={} ip={}", r.request_id, r.method, r.route, r.status,
                   duration, r.actor.empty() ? "-" : r.actor, r.client_ip);
    }
  };
}

}  // namespace certsteward::app
