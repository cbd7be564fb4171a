// Host names, ports and URLs as settings name them.
#include <certsteward/domain/network_names.hpp>

#include <algorithm>
#include <charconv>

namespace certsteward::domain {

bool isHostName(std::string_view h) {
  if (h.empty() || h.size() > 253 || h.front() == '-' || h.front() == '.') return false;
  return std::all_of(h.begin(), h.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '-' || c == ':' || c == '_';
  });
}

std::optional<int> parsePort(std::string_view text) {
  int port = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), port);
  if (ec != std::errc{} || end != text.data() + text.size() || port < 1 || port > 65535) {
    return std::nullopt;
  }
  return port;
}

bool isLoopback(std::string_view host) {
  if (host == "localhost" || host == "::1") return true;
  // 127.0.0.0/8 as an address literal only: "127.evil.example" is a name anywhere.
  if (!host.starts_with("127.")) return false;
  int dots = 0;
  for (const char c : host) {
    if (c == '.') {
      ++dots;
    } else if (c < '0' || c > '9') {
      return false;
    }
  }
  return dots == 3 && !host.ends_with(".") && host.find("..") == std::string_view::npos;
}

std::string urlProblem(std::string_view url, bool loopbackHttp) {
  const bool http = loopbackHttp && url.starts_with("http://");
  if (!url.starts_with("https://") && !http) {
    return loopbackHttp ? "must be an https:// URL (http:// only to a loopback address)"
                        : "must be an https:// URL";
  }
  std::string_view rest = url.substr(http ? 7 : 8);
  const auto slash = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, slash);
  if (authority.find('@') != std::string_view::npos) return "must not carry user information";
  std::string_view host = authority;
  if (host.starts_with("[")) {
    const auto close = host.find(']');
    if (close == std::string_view::npos) return "has an unterminated IPv6 address";
    const auto after = host.substr(close + 1);
    if (!after.empty() && (after.front() != ':' || !parsePort(after.substr(1)))) {
      return "has an invalid port";
    }
    host = host.substr(1, close - 1);
  } else if (const auto colon = host.rfind(':'); colon != std::string_view::npos) {
    if (!parsePort(host.substr(colon + 1))) return "has an invalid port";
    host = host.substr(0, colon);
  }
  if (!isHostName(host)) return "has an invalid host";
  if (std::any_of(url.begin(), url.end(),
                  [](unsigned char c) { return c == ' ' || c == '\\' || c < 0x20 || c == 0x7f; })) {
    return "must not contain spaces, backslashes or control characters";
  }
  if (http && !isLoopback(host))
    return "must be an https:// URL (http:// only to a loopback address)";
  return {};
}

std::optional<std::pair<std::string, int>> splitHostPort(std::string_view text) {
  std::string_view host;
  std::string_view port;
  if (text.starts_with("[")) {
    const auto close = text.find("]:");
    if (close == std::string_view::npos) return std::nullopt;
    host = text.substr(1, close - 1);
    port = text.substr(close + 2);
  } else {
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return std::nullopt;
    host = text.substr(0, colon);
    port = text.substr(colon + 1);
  }
  const auto p = parsePort(port);
  if (!p || !isHostName(host)) return std::nullopt;
  return std::pair{std::string(host), *p};
}

}  // namespace certsteward::domain
