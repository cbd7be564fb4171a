// The stored form of a delivered certificate version.
#include <certsteward/domain/distribution.hpp>

#include <charconv>

#include <certsteward/domain/time.hpp>

namespace certsteward::domain {
namespace {

// Each field as "<length>:<bytes>\n", in a fixed order; names joined by newlines.
void put(std::string& out, const std::string& field) {
  out += std::to_string(field.size());
  out += ':';
  out += field;
  out += '\n';
}

bool take(const std::string& text, std::size_t& at, std::string& field) {
  const auto colon = text.find(':', at);
  if (colon == std::string::npos || colon == at || colon - at > 12) return false;
  std::size_t n = 0;
  const auto [end, ec] = std::from_chars(text.data() + at, text.data() + colon, n);
  if (ec != std::errc{} || end != text.data() + colon) return false;
  if (n > text.size() - colon - 1 || text.size() - colon - 1 - n < 1) return false;
  if (text[colon + 1 + n] != '\n') return false;
  field = text.substr(colon + 1, n);
  at = colon + 2 + n;
  return true;
}

constexpr const char* kMagic = "certsteward-version-1";

}  // namespace

std::string encodeVersion(const CertificateVersion& v) {
  std::string names;
  for (const auto& n : v.names) {
    if (!names.empty()) names += '\n';
    names += n;
  }
  std::string out;
  put(out, kMagic);
  put(out, v.certificate_id);
  put(out, v.common_name);
  put(out, names);
  put(out, v.serial_number);
  put(out, v.expires_at ? std::to_string(unixSeconds(*v.expires_at)) : std::string());
  put(out, v.certificate_pem);
  put(out, v.chain_pem);
  put(out, v.private_key_pem);
  return out;
}

std::optional<CertificateVersion> decodeVersion(const std::string& text) {
  std::size_t at = 0;
  std::string magic, names, expires;
  CertificateVersion v;
  if (!take(text, at, magic) || magic != kMagic) return std::nullopt;
  if (!take(text, at, v.certificate_id) || !take(text, at, v.common_name) ||
      !take(text, at, names) || !take(text, at, v.serial_number) || !take(text, at, expires) ||
      !take(text, at, v.certificate_pem) || !take(text, at, v.chain_pem) ||
      !take(text, at, v.private_key_pem) || at != text.size()) {
    return std::nullopt;
  }
  for (std::size_t from = 0; !names.empty() && from <= names.size();) {
    const auto nl = names.find('\n', from);
    v.names.push_back(names.substr(from, nl == std::string::npos ? nl : nl - from));
    if (nl == std::string::npos) break;
    from = nl + 1;
  }
  if (!expires.empty()) {
    std::int64_t seconds = 0;
    const auto [end, ec] =
        std::from_chars(expires.data(), expires.data() + expires.size(), seconds);
    if (ec != std::errc{} || end != expires.data() + expires.size()) return std::nullopt;
    v.expires_at = fromUnixSeconds(seconds);
  }
  return v;
}

}  // namespace certsteward::domain
