// Channel settings per kind.
#include <certsteward/domain/notification_settings.hpp>

#include <algorithm>
#include <charconv>

#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/network_names.hpp>
#include <certsteward/domain/template.hpp>
#include <certsteward/domain/text.hpp>

namespace certsteward::domain {
namespace {

struct KindSettings {
  std::string_view kind;
  std::vector<std::string_view> required;
  std::vector<std::string_view> known;
};

const std::vector<KindSettings>& table() {
  static const std::vector<KindSettings> t = {
      {"email",
       {"host", "from", "to"},
       {"host", "port", "tls", "from", "from_name", "to", "username", "ca_bundle",
        "subject_template", "body_template"}},
      {"webhook",
       {"url"},
       {"url", "headers", "secret_header", "content_type", "ca_bundle", "subject_template",
        "body_template"}},
      {"slack", {}, {"ca_bundle", "subject_template", "body_template"}},
      {"teams", {}, {"ca_bundle", "subject_template", "body_template"}},
      {"discord", {}, {"ca_bundle", "subject_template", "body_template"}},
      {"telegram",
       {"chat_id"},
       {"chat_id", "api_base_url", "ca_bundle", "subject_template", "body_template"}},
  };
  return t;
}

Error bad(std::string_view setting, const std::string& why) {
  return makeError(ErrorCode::invalid_argument, "settings." + std::string(setting) + " " + why);
}

bool hasControl(std::string_view s, bool allowNewline = false) {
  return std::any_of(s.begin(), s.end(), [&](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    if (allowNewline && (c == '\n' || c == '\r' || c == '\t')) return false;
    return c < 0x20 || c == 0x7f;
  });
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return std::string(s);
}

// "Name: value" lines; none may set what the service sets itself.
Status checkHeaders(const std::string& text) {
  std::size_t from = 0;
  int lines = 0;
  while (from < text.size()) {
    auto end = text.find('\n', from);
    if (end == std::string::npos) end = text.size();
    std::string_view line(text.data() + from, end - from);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    from = end + 1;
    if (trim(line).empty()) continue;
    if (++lines > 20) return bad("headers", "has more than 20 lines");
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return bad("headers", "lines must be 'Name: value'");
    const auto name = line.substr(0, colon);
    if (!isHttpToken(name)) return bad("headers", "has an invalid header name");
    const auto l = asciiLower(name);
    if (l == "content-type" || l == "content-length" || l == "host" || l == "transfer-encoding" ||
        l == "connection" || l == "expect" || l.starts_with("x-certsteward-")) {
      return bad("headers", "cannot set " + std::string(name) + " (the service sets it)");
    }
    if (hasControl(line.substr(colon + 1))) {
      return bad("headers", "values cannot hold control characters");
    }
  }
  return {};
}

Status checkEmail(const Settings& s) {
  const auto host = s.at("host");
  if (!isHostName(host)) return bad("host", "must be a host name or address");
  if (s.count("port") && !parsePort(s.at("port"))) return bad("port", "must be 1..65535");
  const auto tls = settingOf(s, "tls", "starttls");
  if (tls != "starttls" && tls != "tls" && tls != "none") {
    return bad("tls", "must be starttls, tls or none");
  }
  if (tls == "none" && !isLoopback(host)) {
    return bad("tls",
               "none is allowed only for a loopback host (the password would travel in "
               "clear)");
  }
  if (!isEmailAddress(s.at("from"))) return bad("from", "must be an address such as a@b.example");
  if (s.count("from_name") && (hasControl(s.at("from_name")) || s.at("from_name").size() > 200)) {
    return bad("from_name", "must be one line of at most 200 characters");
  }
  if (s.count("username") && (hasControl(s.at("username")) || s.at("username").size() > 200)) {
    return bad("username", "must be one line of at most 200 characters");
  }
  NotificationChannel probe;
  probe.settings = s;
  const auto to = emailRecipients(probe);
  if (to.empty() || to.size() > 50) return bad("to", "must list 1 to 50 addresses");
  for (const auto& a : to) {
    if (!isEmailAddress(a)) return bad("to", "has an invalid address");
  }
  return {};
}

}  // namespace

const std::vector<std::string_view>& notificationChannelKinds() {
  static const std::vector<std::string_view> kinds = [] {
    std::vector<std::string_view> k;
    for (const auto& t : table())
      k.push_back(t.kind);
    return k;
  }();
  return kinds;
}

bool channelNeedsSecret(std::string_view kind) {
  return kind == "slack" || kind == "teams" || kind == "discord" || kind == "telegram";
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
  std::vector<std::string> out;
  const auto text = settingOf(channel.settings, "to");
  std::size_t from = 0;
  while (from <= text.size()) {
    auto comma = text.find(',', from);
    if (comma == std::string::npos) comma = text.size();
    auto one = trim(std::string_view(text).substr(from, comma - from));
    if (!one.empty()) out.push_back(std::move(one));
    from = comma + 1;
  }
  return out;
}

Status checkChannelSecret(const NotificationChannel& channel, std::string_view secret) {
  if (channel.kind == "slack" || channel.kind == "teams" || channel.kind == "discord") {
    if (!urlProblem(secret, true).empty()) {
      return makeError(ErrorCode::invalid_argument,
                       "secret must be the channel's incoming-webhook URL (https://, or http:// "
                       "to a loopback host)");
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
      return makeError(ErrorCode::invalid_argument,
                       "secret must be the bot token as BotFather gives it (<digits>:<token>)");
    }
  }
  return {};
}

Status checkChannel(const NotificationChannel& channel, bool secretSet) {
  const auto it = std::find_if(table().begin(), table().end(),
                               [&](const KindSettings& k) { return k.kind == channel.kind; });
  if (it == table().end()) {
    return makeError(ErrorCode::invalid_argument,
                     "unknown kind: '" + channel.kind.substr(0, 40) +
                         "' (email, webhook, slack, teams, discord, telegram)",
                     kMalformed);
  }
  const auto& s = channel.settings;
  for (const auto& [key, value] : s) {
    if (std::find(it->known.begin(), it->known.end(), key) == it->known.end()) {
      return makeError(
          ErrorCode::invalid_argument,
          "settings." + key.substr(0, 60) + " is not a setting of " + channel.kind + " channels");
    }
    const bool multiLine = key == "headers" || key == "body_template" || key == "ca_bundle";
    if (hasControl(value, multiLine)) return bad(key, "cannot hold control characters");
  }
  for (const auto key : it->required) {
    if (settingOf(s, key).empty()) return bad(key, "is required");
  }
  if (channelNeedsSecret(channel.kind) && !secretSet) {
    return makeError(ErrorCode::invalid_argument,
                     channel.kind == "telegram" ? std::string("secret (the bot token) is required")
                                                : "secret (the incoming-webhook URL) is required");
  }
  for (const char* key : {"subject_template", "body_template"}) {
    if (s.count(key)) {
      if (auto t = checkTemplate(std::string("settings.") + key, s.at(key)); !t) return t;
    }
  }
  if (s.count("ca_bundle")) {
    if (const auto problem = pemCertificatesProblem(s.at("ca_bundle")); !problem.empty()) {
      return bad("ca_bundle", problem);
    }
  }
  if (channel.kind == "email") return checkEmail(s);
  if (channel.kind == "webhook") {
    if (auto why = urlProblem(s.at("url"), true); !why.empty()) return bad("url", why);
    if (s.count("headers")) {
      if (auto h = checkHeaders(s.at("headers")); !h) return h;
    }
    if (s.count("secret_header")) {
      if (auto h = checkHeaders(s.at("secret_header") + ": x"); !h) {
        return bad("secret_header", "must be a header name the service does not set itself");
      }
      if (!secretSet) return bad("secret_header", "needs the channel's secret (its value)");
    }
    if (s.count("content_type") &&
        !isHttpToken(
            settingOf(s, "content_type").substr(0, settingOf(s, "content_type").find('/')))) {
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
    if (s.count("api_base_url")) {
      if (auto why = urlProblem(s.at("api_base_url"), true); !why.empty()) {
        return bad("api_base_url", why);
      }
    }
  }
  return {};
}

}  // namespace certsteward::domain
