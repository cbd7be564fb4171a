// RFC 4515 escaping.
#include <certsteward/domain/ldap_filter.hpp>

namespace certsteward::domain {

std::string escapeFilterValue(std::string_view value) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == '*' || c == '(' || c == ')' || c == '\\' || c == '\0') {
      const auto u = static_cast<unsigned char>(c);
      out += '\\';
      out += kHex[u >> 4];
      out += kHex[u & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

std::string userFilter(std::string_view filterTemplate, std::string_view username) {
  static constexpr std::string_view kPlaceholder = "{username}";
  const std::string escaped = escapeFilterValue(username);
  std::string out;
  std::size_t from = 0;
  for (;;) {
    const auto at = filterTemplate.find(kPlaceholder, from);
    out += filterTemplate.substr(from,
                                 at == std::string_view::npos ? std::string_view::npos : at - from);
    if (at == std::string_view::npos) return out;
    out += escaped;
    from = at + kPlaceholder.size();
  }
}

}  // namespace certsteward::domain
