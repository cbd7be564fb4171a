// Logic-free templates.
#include <certsteward/domain/template.hpp>

#include <algorithm>
#include <cstdio>

namespace certsteward::domain {
namespace {

constexpr std::size_t kMaxTemplate = 16 * 1024;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  return s;
}

// Calls onText for literal runs and onName for each "{{name}}"; false on an unclosed "{{".
template <class Text, class Name>
bool walk(std::string_view text, Text onText, Name onName) {
  std::size_t from = 0;
  while (from < text.size()) {
    const auto open = text.find("{{", from);
    if (open == std::string_view::npos) break;
    const auto close = text.find("}}", open + 2);
    if (close == std::string_view::npos) return false;
    onText(text.substr(from, open - from));
    onName(trimmed(text.substr(open + 2, close - open - 2)));
    from = close + 2;
  }
  onText(text.substr(std::min(from, text.size())));
  return true;
}

std::string escaped(std::string_view value, Escape escape) {
  switch (escape) {
    case Escape::html:
      return escapeHtml(value);
    case Escape::json:
      return escapeJsonString(value);
    case Escape::none:
      break;
  }
  return std::string(value);
}

}  // namespace

const std::vector<std::string_view>& templateVariables() {
  static const std::vector<std::string_view> names = {
      "event",
      "message",
      "at",
      "recovery",
      "delivery_id",
      "link",
      "project.id",
      "project.name",
      "certificate.id",
      "certificate.common_name",
      "certificate.names",
      "certificate.expires_at",
      "certificate.serial_number",
      "certificate.status",
      "days_left",
      "reason",
      "job.id",
      "job.type",
      "distribution.id",
      "module.name",
  };
  return names;
}

Status checkTemplate(std::string_view field, std::string_view text) {
  if (text.size() > kMaxTemplate) {
    return makeError(ErrorCode::invalid_argument, std::string(field) + " is longer than 16 KiB");
  }
  const auto& known = templateVariables();
  std::string unknown;
  const bool closed = walk(
      text, [](std::string_view) {},
      [&](std::string_view name) {
        if (unknown.empty() && std::find(known.begin(), known.end(), name) == known.end()) {
          unknown = name.empty() ? std::string("{{}}") : std::string(name.substr(0, 60));
        }
      });
  if (!closed) {
    return makeError(ErrorCode::invalid_argument,
                     std::string(field) + " has a '{{' without its '}}'");
  }
  if (!unknown.empty()) {
    return makeError(ErrorCode::invalid_argument, std::string(field) +
                                                      " names an unknown variable '" + unknown +
                                                      "' (docs/api.md lists the variables)");
  }
  return {};
}

std::string renderTemplate(std::string_view text, const std::map<std::string, std::string>& vars,
                           Escape escape) {
  std::string out;
  out.reserve(text.size() + 64);
  walk(
      text, [&](std::string_view literal) { out += literal; },
      [&](std::string_view name) {
        const auto it = vars.find(std::string(name));
        if (it != vars.end()) out += escaped(it->second, escape);
      });
  return out;
}

std::string escapeHtml(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string escapeJsonString(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", u);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace certsteward::domain
