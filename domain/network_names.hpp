// Host names, ports and URLs as settings name them (distribution targets, notification
// channels): checked when saved, so nothing malformed or hostile reaches an adapter.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace certsteward::domain {

// Letters, digits, '.', '-', ':' (IPv6), '_'; 1 to 253 characters, not starting with '-' or '.'.
bool isHostName(std::string_view host);
// 1 .. 65535, digits only.
std::optional<int> parsePort(std::string_view text);
// localhost, ::1 or 127.0.0.0/8.
bool isLoopback(std::string_view host);
// Why `url` is not an acceptable https://host[:port][/path] URL (no user information, control
// characters or spaces; with `loopbackHttp`, http:// to a loopback host too), or "".
std::string urlProblem(std::string_view url, bool loopbackHttp = false);
// "host:port" split; nullopt when either part is missing or the port is not 1..65535.
std::optional<std::pair<std::string, int>> splitHostPort(std::string_view text);

}  // namespace certsteward::domain
