// Webhook, Slack, Discord, Teams and Telegram: the JSON each service documents, one POST each.
#include <certsteward/adapters/notify/http_channels.hpp>

#include <boost/json.hpp>

#include <charconv>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <vector>

#include <certsteward/adapters/common/http_client.hpp>
#include <certsteward/adapters/notify/channel_text.hpp>
#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/notification_settings.hpp>

namespace certsteward::adapters::notify {

namespace json = boost::json;
using common::HttpRequest;
using common::HttpResponse;
using domain::ErrorCode;
using domain::makeError;

namespace {

constexpr std::size_t kDiscordLimit = 2000;   // characters of "content" (Discord's API)
constexpr std::size_t kTelegramLimit = 4096;  // characters of "text" (Bot API sendMessage)
constexpr std::size_t kMaxHeaderLines = 20;

// A POST of `body` as JSON to `url` with the channel's ca_bundle, within `timeout`.
HttpRequest jsonPost(const common::Outbound& outbound, const domain::NotificationChannel& channel,
                     std::string url, std::string body, domain::Duration timeout,
                     std::vector<std::string> secrets) {
  HttpRequest request;
  request.outbound = &outbound;
  request.url = std::move(url);
  request.headers = {"Content-Type: application/json"};
  request.body = std::move(body);
  request.ca_pem = domain::settingOf(channel.settings, "ca_bundle");
  request.timeout = std::chrono::duration_cast<std::chrono::milliseconds>(timeout);
  request.secrets = std::move(secrets);
  return request;
}

bool retryable(long status) {
  return status == 408 || status == 425 || status == 429 || status >= 500;
}

// ok for a 2xx answer; else what `who` answered, as unavailable or failed_precondition.
domain::Status judge(std::string_view who, const domain::Result<HttpResponse>& answer,
                     const std::vector<std::string>& secrets) {
  if (!answer) {
    domain::Error error = answer.error();
    error.message = std::string(who) + ": " + error.message;
    return error;
  }
  const long status = answer->status;
  if (status >= 200 && status <= 299) return {};
  // The status and a fixed phrase: the answer's body is the peer's and stays in the log.
  std::string text = std::string(who) + " answered HTTP " + std::to_string(status);
  if (status >= 300 && status <= 399) {
    text += " (redirects are not followed)";
  } else if (status == 401 || status == 403) {
    text += " (the receiver refused the credentials)";
  } else if (status == 404 || status == 410) {
    text += " (the receiver does not know this address)";
  } else if (retryable(status)) {
    text += " (the receiver is busy or failing; retried later)";
  } else {
    text += " (the receiver refused the message)";
  }
  if (const auto quoted = excerpt(common::maskSecrets(answer->body, secrets)); !quoted.empty()) {
    common::logOutboundDetail(std::string(who), "HTTP " + std::to_string(status) + ": " + quoted);
  }
  return makeError(retryable(status) ? ErrorCode::unavailable : ErrorCode::failed_precondition,
                   text);
}

domain::Status post(std::string_view who, const HttpRequest& request) {
  if (request.url.empty()) {  // for slack, discord and teams the URL is the channel's secret
    return makeError(ErrorCode::failed_precondition, std::string(who) + ": no URL is set");
  }
  return judge(who, common::postHttp(request), request.secrets);
}

std::string headline(const ports::OutgoingMessage& message, std::string_view separator) {
  if (message.subject.empty()) return validUtf8(message.text);
  if (message.text.empty()) return validUtf8(message.subject);
  return validUtf8(message.subject) + std::string(separator) + validUtf8(message.text);
}

domain::Error refuse(std::string text) {
  return makeError(ErrorCode::failed_precondition, std::move(text));
}

// The webhook's `headers` setting as request header lines, or why it cannot be used.
domain::Result<std::vector<std::string>> customHeaders(std::string_view text) {
  std::vector<std::string> out;
  std::size_t number = 0;
  for (std::size_t start = 0; start < text.size();) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (trimmed(line).empty()) continue;
    const std::string where = "webhook: headers line " + std::to_string(number);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return refuse(where + " is not 'Name: value'");
    const std::string_view name = line.substr(0, colon);
    const std::string_view value = trimmed(line.substr(colon + 1));
    if (!domain::isHttpToken(name)) return refuse(where + ": the name is not an HTTP token");
    if (hasControl(value)) return refuse(where + ": the value holds CR, LF or a control character");
    std::string lower;
    for (const char c : name)
      lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
    if (lower == "content-type" || lower.starts_with("x-certsteward-") ||
        lower == "content-length" || lower == "transfer-encoding" || lower == "host" ||
        lower == "connection" || lower == "expect") {
      return refuse(where + ": " + std::string(name) + " is set by CertSteward");
    }
    if (out.size() == kMaxHeaderLines) return refuse("webhook: headers has too many lines");
    // "Name;" is libcurl's way to send a header with an empty value.
    out.push_back(value.empty() ? std::string(name) + ";"
                                : std::string(name) + ": " + std::string(value));
  }
  return out;
}

std::string unixSecondsNow() {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count());
}

std::string webhookDocument(const ports::OutgoingMessage& message) {
  json::object variables;
  for (const auto& [name, value] : message.variables)
    variables[validUtf8(name)] = validUtf8(value);
  json::object doc;
  doc["delivery_id"] = validUtf8(message.delivery_id);
  doc["redelivery"] = message.redelivery;
  doc["event"] = validUtf8(message.event);
  doc["recovery"] = message.recovery;
  doc["subject"] = validUtf8(message.subject);
  doc["message"] = validUtf8(message.text);
  doc["at"] = domain::formatTimestamp(message.at);
  doc["variables"] = std::move(variables);
  return json::serialize(doc);
}

// Slack reads &, < and > as the start of its control sequences (<!channel>, <url|label>).
std::string slackEscaped(std::string_view text) {
  std::string out;
  for (const char c : text) {
    if (c == '&') {
      out += "&amp;";
    } else if (c == '<') {
      out += "&lt;";
    } else if (c == '>') {
      out += "&gt;";
    } else {
      out += c;
    }
  }
  return out;
}

bool isBotToken(std::string_view token) {
  const auto colon = token.find(':');
  if (colon == 0 || colon == std::string_view::npos || colon + 1 == token.size()) return false;
  for (std::size_t i = 0; i < token.size(); ++i) {
    const char c = token[i];
    const bool digit = c >= '0' && c <= '9';
    const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (i < colon ? !digit : (i != colon && !digit && !letter && c != '_' && c != '-')) {
      return false;
    }
  }
  return true;
}

json::value chatId(const std::string& text) {
  std::int64_t number = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), number);
  if (ec == std::errc() && end == text.data() + text.size()) return json::value(number);
  return json::value(validUtf8(text));
}

}  // namespace

domain::Status sendWebhook(const common::Outbound& outbound,
                           const domain::NotificationChannel& channel, const std::string& secret,
                           const ports::OutgoingMessage& message, domain::Duration timeout) {
  auto extra = customHeaders(domain::settingOf(channel.settings, "headers"));
  if (!extra) return extra.error();
  const std::string contentType =
      domain::settingOf(channel.settings, "content_type", "application/json");
  if (hasControl(contentType)) return refuse("webhook: content_type holds a control character");
  const bool templated = !message.body.empty();
  const std::string url = domain::settingOf(channel.settings, "url");
  std::vector<std::string> masked{secret};
  // A token in the query (?auth=...) is as secret as the secret: each value is masked.
  if (const auto query = url.find('?'); query != std::string::npos) {
    std::size_t from = query + 1;
    while (from < url.size()) {
      auto end = url.find_first_of("&#", from);
      if (end == std::string::npos) end = url.size();
      const auto eq = url.find('=', from);
      const auto value = eq != std::string::npos && eq < end ? eq + 1 : from;
      if (end - value >= 4) masked.push_back(url.substr(value, end - value));
      from = end + 1;
    }
  }
  HttpRequest request =
      jsonPost(outbound, channel, url, templated ? message.body : webhookDocument(message), timeout,
               std::move(masked));
  const std::string timestamp = unixSecondsNow();
  request.headers = {"Content-Type: " + (templated ? contentType : "application/json"),
                     "X-CertSteward-Delivery: " + tokenOnly(message.delivery_id),
                     "X-CertSteward-Event: " + tokenOnly(message.event),
                     "X-CertSteward-Timestamp: " + timestamp};
  if (message.redelivery) request.headers.push_back("X-CertSteward-Redelivery: 1");
  // The secret signs the request, or (secret_header) is that header's value: a receiver that
  // wants a token (ntfy, Gotify: "Authorization: Bearer ...") gets it without the token being a
  // plain setting.
  const std::string secretHeader = domain::settingOf(channel.settings, "secret_header");
  if (!secret.empty() && !secretHeader.empty()) {
    if (hasControl(secret)) return refuse("webhook: the secret holds a control character");
    request.headers.push_back(secretHeader + ": " + secret);
  } else if (!secret.empty()) {
    request.headers.push_back("X-CertSteward-Signature: sha256=" +
                              common::hmacSha256Hex(secret, timestamp + "." + request.body));
  }
  for (auto& line : *extra)
    request.headers.push_back(std::move(line));
  return post("webhook", request);
}

domain::Status sendSlack(const common::Outbound& outbound,
                         const domain::NotificationChannel& channel, const std::string& secret,
                         const ports::OutgoingMessage& message, domain::Duration timeout) {
  const json::object doc{{"text", slackEscaped(headline(message, "\n"))}};
  return post("slack",
              jsonPost(outbound, channel, secret, json::serialize(doc), timeout, {secret}));
}

domain::Status sendDiscord(const common::Outbound& outbound,
                           const domain::NotificationChannel& channel, const std::string& secret,
                           const ports::OutgoingMessage& message, domain::Duration timeout) {
  // allowed_mentions: text from certificates and errors must never ping @everyone or a role.
  const json::object doc{{"content", truncateUtf16(headline(message, "\n"), kDiscordLimit)},
                         {"allowed_mentions", json::object{{"parse", json::array{}}}}};
  return post("discord",
              jsonPost(outbound, channel, secret, json::serialize(doc), timeout, {secret}));
}

domain::Status sendTeams(const common::Outbound& outbound,
                         const domain::NotificationChannel& channel, const std::string& secret,
                         const ports::OutgoingMessage& message, domain::Duration timeout) {
  const json::object card{{"$schema", "http://adaptivecards.io/schemas/adaptive-card.json"},
                          {"type", "AdaptiveCard"},
                          {"version", "1.4"},
                          {"body", json::array{json::object{{"type", "TextBlock"},
                                                            {"text", validUtf8(message.subject)},
                                                            {"weight", "Bolder"},
                                                            {"wrap", true}},
                                               json::object{{"type", "TextBlock"},
                                                            {"text", validUtf8(message.text)},
                                                            {"wrap", true}}}}};
  const json::object doc{
      {"type", "message"},
      {"attachments",
       json::array{json::object{{"contentType", "application/vnd.microsoft.card.adaptive"},
                                {"content", card}}}}};
  return post("teams",
              jsonPost(outbound, channel, secret, json::serialize(doc), timeout, {secret}));
}

domain::Status sendTelegram(const common::Outbound& outbound,
                            const domain::NotificationChannel& channel, const std::string& secret,
                            const ports::OutgoingMessage& message, domain::Duration timeout) {
  if (!isBotToken(secret)) return refuse("telegram: the bot token is malformed");
  const std::string chat = domain::settingOf(channel.settings, "chat_id");
  if (chat.empty()) return refuse("telegram: chat_id is not set");
  std::string base =
      domain::settingOf(channel.settings, "api_base_url", "https://api.telegram.org");
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  const json::object doc{{"chat_id", chatId(chat)},
                         {"text", truncateUtf16(headline(message, "\n\n"), kTelegramLimit)},
                         {"disable_web_page_preview", true}};
  const std::string url = base + "/bot" + secret + "/sendMessage";
  const std::vector<std::string> secrets{secret, url};
  const auto answer =
      common::postHttp(jsonPost(outbound, channel, url, json::serialize(doc), timeout, secrets));
  if (!answer) return judge("telegram", answer, secrets);
  // The Bot API answers {"ok":true,"result":...} or {"ok":false,"description":...}.
  json::error_code ec;
  const json::value reply = json::parse(answer->body, ec);
  const json::object* fields = !ec ? reply.if_object() : nullptr;
  const json::value* ok = fields != nullptr ? fields->if_contains("ok") : nullptr;
  const bool success = answer->status >= 200 && answer->status <= 299;
  if (ok == nullptr || !ok->is_bool()) return judge("telegram", answer, secrets);  // not the API
  if (success && ok->as_bool()) return {};
  // The Bot API's description (e.g. "chat not found") is the peer's words: logged, never answered.
  if (const json::value* description = fields->if_contains("description");
      description != nullptr && description->is_string()) {
    common::logOutboundDetail(
        "telegram", excerpt(common::maskSecrets(std::string(description->as_string()), secrets)));
  }
  return makeError(
      retryable(answer->status) ? ErrorCode::unavailable : ErrorCode::failed_precondition,
      "telegram: the Bot API refused the message (HTTP " + std::to_string(answer->status) +
          "; its description is in the server log)");
}

}  // namespace certsteward::adapters::notify
