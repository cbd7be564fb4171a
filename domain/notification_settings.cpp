// Channel settings per kind.
#include <certsteward/domain/notification_settings.hpp>

#include <algorithm>

#include <certsteward/domain/catalog.hpp>
#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/network_names.hpp>
#include <certsteward/domain/template.hpp>

namespace certsteward::domain {
namespace {

Error bad(std::string_view setting, const std::string& why) {
  return fieldError("settings." + std::string(setting) + " " + why);
}

const KindSpec* channelSpec(std::string_view kind) {
  return findKind(notificationChannelSpecs(), kind);
}

}  // namespace

const std::vector<std::string_view>& notificationChannelKinds() {
  static const std::vector<std::string_view> kinds = [] {
    std::vector<std::string_view> k;
    for (const auto& spec : notificationChannelSpecs())
      k.push_back(spec.name);
    return k;
  }();
  return kinds;
}

bool channelNeedsSecret(std::string_view kind) {
  const auto* spec = channelSpec(kind);
  const auto* secret = spec == nullptr ? nullptr : findField(*spec, "secret", FieldPlace::body);
  return secret != nullptr && secret->required;
}

bool isEmailAddress(std::string_view a) {
  const auto at = a.rfind('@');
  if (a.size() > 254 || at == std::string_view::npos || at == 0 || at + 1 >= a.size() ||
      a.find('@') != at) {
    return false;
  }
  return std::none_of(a.begin(), a.end(), [](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    return c <= 0x20 || c >= 0x7f ||
           std::string_view("<>()[]\\,;:\"").find(ch) != std::string_view::npos;
  });
}

bool isHttpToken(std::string_view name) {
  static constexpr std::string_view extra = "!#$%&'*+-.^_`|~";
  return !name.empty() && name.size() <= 100 && std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           extra.find(c) != std::string_view::npos;
  });
}

std::vector<std::string> emailRecipients(const NotificationChannel& channel) {
  return commaSeparated(settingOf(channel.settings, "to"));
}

Status checkChannelSecret(const NotificationChannel& channel, std::string_view secret) {
  if (channel.kind == "slack" || channel.kind == "teams" || channel.kind == "discord") {
    if (!urlProblem(secret, true).empty()) {
      return fieldError(
          "secret must be the channel's incoming-webhook URL (https://, or http:// to a "
          "loopback host)");
    }
  }
  if (channel.kind == "telegram") {
    const auto colon = secret.find(':');
    const auto digits = secret.substr(0, colon);
    const auto rest =
        colon == std::string_view::npos ? std::string_view{} : secret.substr(colon + 1);
    const bool ok =
        colon != std::string_view::npos && !digits.empty() && !rest.empty() &&
        secret.size() <= 200 &&
        std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
        std::all_of(rest.begin(), rest.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '_' || c == '-';
        });
    if (!ok) {
      return fieldError("secret must be the bot token as BotFather gives it (<digits>:<token>)");
    }
  }
  return {};
}

Status checkChannel(const NotificationChannel& channel, bool secretSet) {
  const auto* spec = channelSpec(channel.kind);
  if (spec == nullptr) {
    return makeError(ErrorCode::invalid_argument,
                     "unknown kind: '" + channel.kind.substr(0, 40) + "' (" +
                         kindNames(notificationChannelSpecs()) + ")",
                     kMalformed);
  }
  const auto& s = channel.settings;
  // What the description says: known settings, each value of its type, the required ones given.
  if (const auto problem = settingsProblem(*spec, s, true)) {
    return bad(problem->key, explain(*problem, channel.kind + " channels"));
  }
  if (channelNeedsSecret(channel.kind) && !secretSet) {
    return fieldError(channel.kind == "telegram" ? std::string("secret (the bot token) is required")
                                                 : "secret (the incoming-webhook URL) is required");
  }
  // The rules between settings, and what a type alone does not say.
  for (const char* key : {"subject_template", "body_template"}) {
    if (!settingOf(s, key).empty()) {
      if (auto t = checkTemplate(std::string("settings.") + key, s.at(key)); !t) {
        return fieldError(t.error().message);  // "settings.<key> ..."
      }
    }
  }
  if (channel.kind == "email") {
    const auto tls = settingOf(s, "tls", "starttls");
    if (tls == "none" && !isLoopback(s.at("host"))) {
      return bad("tls",
                 "none is allowed only for a loopback host (the password would travel in "
                 "clear)");
    }
  }
  if (channel.kind == "webhook") {
    if (!settingOf(s, "secret_header").empty()) {
      if (!headerLinesProblem(s.at("secret_header") + ": x").empty()) {
        return bad("secret_header", "must be a header name the service does not set itself");
      }
      if (!secretSet) return bad("secret_header", "needs the channel's secret (its value)");
    }
    const auto contentType = settingOf(s, "content_type");
    if (!contentType.empty() && !isHttpToken(contentType.substr(0, contentType.find('/')))) {
      return bad("content_type", "must be a media type such as application/json");
    }
  }
  if (channel.kind == "telegram") {
    const auto chat = s.at("chat_id");
    const bool numeric = std::all_of(chat.begin() + (chat.starts_with("-") ? 1 : 0), chat.end(),
                                     [](char c) { return c >= '0' && c <= '9'; }) &&
                         chat.size() > (chat.starts_with("-") ? 1U : 0U);
    const bool username = chat.starts_with("@") && chat.size() > 1 && isHttpToken(chat.substr(1));
    if (!numeric && !username) return bad("chat_id", "must be a chat number or @channelname");
  }
  return {};
}

}  // namespace certsteward::domain
