// Field descriptions and the checks every field type gets.
#include <certsteward/domain/settings_schema.hpp>

#include <algorithm>
#include <charconv>

#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/network_names.hpp>
#include <certsteward/domain/notification_settings.hpp>
#include <certsteward/domain/text.hpp>

namespace certsteward::domain {
namespace {

bool multiLine(FieldType t) {
  return t == FieldType::text || t == FieldType::pem || t == FieldType::headers ||
         t == FieldType::template_text || t == FieldType::secret;
}

std::size_t lengthBound(const FieldSpec& f) {
  if (f.max_length != 0) return f.max_length;
  // The API takes at most 16 KiB per setting value; several-line and list values may use it.
  switch (f.type) {
    case FieldType::pem:
    case FieldType::template_text:
    case FieldType::text:
    case FieldType::headers:
    case FieldType::email_list:
      return 16384;
    default:
      return 4096;
  }
}

bool hasControl(std::string_view v, bool newlinesAllowed) {
  return std::any_of(v.begin(), v.end(), [&](char ch) {
    const auto c = static_cast<unsigned char>(ch);
    if (newlinesAllowed && (c == '\n' || c == '\r' || c == '\t')) return false;
    return c < 0x20 || c == 0x7f;
  });
}

std::string trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return std::string(s);
}

std::string integerProblem(const FieldSpec& f, std::string_view v) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  const std::string range = std::to_string(f.min) + ".." + std::to_string(f.max);
  if (ec != std::errc{} || end != v.data() + v.size() || n < f.min || n > f.max) {
    return "must be " + range;
  }
  return {};
}

std::string hostPortProblem(const FieldSpec& f, std::string_view v) {
  if (f.port_optional && isHostName(v)) return {};
  const auto split = splitHostPort(v);
  if (!split || !isHostName(split->first)) {
    return f.port_optional ? "must be host or host:port" : "must be host:port";
  }
  return {};
}

}  // namespace

std::string_view nameOf(FieldType type) noexcept {
  switch (type) {
    case FieldType::string:
      return "string";
    case FieldType::text:
      return "text";
    case FieldType::integer:
      return "integer";
    case FieldType::boolean:
      return "boolean";
    case FieldType::enumeration:
      return "enum";
    case FieldType::secret:
      return "secret";
    case FieldType::path:
      return "path";
    case FieldType::url:
      return "url";
    case FieldType::host:
      return "host";
    case FieldType::host_port:
      return "host_port";
    case FieldType::host_port_list:
      return "host_port_list";
    case FieldType::pem:
      return "pem";
    case FieldType::email:
      return "email";
    case FieldType::email_list:
      return "email_list";
    case FieldType::headers:
      return "headers";
    case FieldType::template_text:
      return "template";
    case FieldType::fingerprint:
      return "fingerprint";
    case FieldType::credential:
      return "credential";
  }
  return "string";
}

std::string_view nameOf(FieldScope scope) noexcept {
  switch (scope) {
    case FieldScope::target:
      return "target";
    case FieldScope::shared:
      return "shared";
    case FieldScope::none:
      break;
  }
  return {};
}

const FieldSpec* findField(const KindSpec& kind, std::string_view name, FieldPlace place) {
  const auto it = std::find_if(kind.fields.begin(), kind.fields.end(), [&](const FieldSpec& f) {
    return f.name == name && f.place == place;
  });
  return it == kind.fields.end() ? nullptr : &*it;
}

const KindSpec* findKind(const std::vector<KindSpec>& kinds, std::string_view name) {
  const auto it =
      std::find_if(kinds.begin(), kinds.end(), [&](const KindSpec& k) { return k.name == name; });
  return it == kinds.end() ? nullptr : &*it;
}

std::string kindNames(const std::vector<KindSpec>& kinds) {
  std::string names;
  for (const auto& k : kinds)
    names += (names.empty() ? "" : ", ") + std::string(k.name);
  return names;
}

std::vector<std::string> commaSeparated(std::string_view text) {
  std::vector<std::string> out;
  std::size_t from = 0;
  while (from <= text.size()) {
    auto comma = text.find(',', from);
    if (comma == std::string_view::npos) comma = text.size();
    auto one = trimmed(text.substr(from, comma - from));
    if (!one.empty()) out.push_back(std::move(one));
    from = comma + 1;
  }
  return out;
}

std::string headerLinesProblem(std::string_view text) {
  std::size_t from = 0;
  int lines = 0;
  while (from < text.size()) {
    auto end = text.find('\n', from);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(from, end - from);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    from = end + 1;
    if (trimmed(line).empty()) continue;
    if (++lines > 20) return "has more than 20 lines";
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) return "lines must be 'Name: value'";
    const auto name = line.substr(0, colon);
    if (!isHttpToken(name)) return "has an invalid header name";
    const auto l = asciiLower(name);
    if (l == "content-type" || l == "content-length" || l == "host" || l == "transfer-encoding" ||
        l == "connection" || l == "expect" || l.starts_with("x-certsteward-")) {
      return "cannot set " + std::string(name) + " (the service sets it)";
    }
    if (hasControl(line.substr(colon + 1), false)) return "values cannot hold control characters";
  }
  return {};
}

bool isSshFingerprint(std::string_view f) {
  constexpr std::string_view prefix = "SHA256:";
  if (!f.starts_with(prefix)) return false;
  auto b64 = f.substr(prefix.size());
  while (!b64.empty() && b64.back() == '=')
    b64.remove_suffix(1);
  return b64.size() == 43 && std::all_of(b64.begin(), b64.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '+' || c == '/';
         });
}

bool isCleanAbsolutePath(std::string_view p) {
  if (p.size() < 2 || p.size() > 1024 || p.front() != '/' || p.back() == '/') return false;
  std::size_t from = 1;
  while (from <= p.size()) {
    const auto slash = p.find('/', from);
    const auto seg =
        p.substr(from, slash == std::string_view::npos ? p.size() - from : slash - from);
    if (seg.empty() || seg == "." || seg == "..") return false;
    if (slash == std::string_view::npos) break;
    from = slash + 1;
  }
  return true;
}

std::string valueProblem(const FieldSpec& f, std::string_view v) {
  if (v.size() > lengthBound(f)) return "is too long";
  if (hasControl(v, multiLine(f.type))) return "must not contain control characters";
  switch (f.type) {
    case FieldType::integer:
      return integerProblem(f, v);
    case FieldType::boolean:
      return v == "true" || v == "false" ? "" : "must be true or false";
    case FieldType::enumeration: {
      if (!f.values_from.empty()) return {};
      if (std::find(f.values.begin(), f.values.end(), v) != f.values.end()) return {};
      std::string list;
      for (const auto value : f.values)
        list += (list.empty() ? "" : ", ") + std::string(value);
      return "must be one of: " + list;
    }
    case FieldType::path:
      return isCleanAbsolutePath(v) ? "" : "must be an absolute path without '.' or '..' segments";
    case FieldType::url:
      return urlProblem(v, f.loopback_http);
    case FieldType::host:
      return isHostName(v) ? "" : "must be a host name or address";
    case FieldType::host_port:
      return hostPortProblem(f, v);
    case FieldType::host_port_list: {
      const auto items = commaSeparated(v);
      if (items.size() > 20) return "lists more than 20 servers";
      for (const auto& item : items) {
        if (!isHostName(item) && !hostPortProblem(f, item).empty()) {
          return "must list host or host:port, comma-separated";
        }
      }
      return {};
    }
    case FieldType::pem:
      return pemCertificatesProblem(v);
    case FieldType::email:
      return isEmailAddress(v) ? "" : "must be an address such as a@b.example";
    case FieldType::email_list: {
      const auto to = commaSeparated(v);
      if (to.empty() || to.size() > 50) return "must list 1 to 50 addresses";
      for (const auto& a : to) {
        if (!isEmailAddress(a)) return "has an invalid address";
      }
      return {};
    }
    case FieldType::headers:
      return headerLinesProblem(v);
    case FieldType::fingerprint:
      return isSshFingerprint(v)
                 ? ""
                 : "must be the fingerprint as ssh-keygen -lf prints it: SHA256:<43 characters>";
    case FieldType::string:
    case FieldType::text:
    case FieldType::secret:
    case FieldType::template_text:  // the kind's rule checks the variables
    case FieldType::credential:     // the service checks it names a credential of the project
      return {};
  }
  return {};
}

std::optional<SettingProblem> settingsProblem(const KindSpec& kind, const Settings& settings,
                                              bool requireFields) {
  for (const auto& [key, value] : settings) {
    const auto* field = findField(kind, key);
    if (field == nullptr)
      return SettingProblem{SettingProblem::What::unknown, key.substr(0, 64), {}};
    if (value.empty()) continue;  // an empty value is an absent one
    if (auto why = valueProblem(*field, value); !why.empty()) {
      return SettingProblem{SettingProblem::What::invalid, key, std::move(why)};
    }
  }
  if (!requireFields) return std::nullopt;
  for (const auto& field : kind.fields) {
    if (!field.required || field.place != FieldPlace::settings) continue;
    const auto it = settings.find(std::string(field.name));
    if (it == settings.end() || it->second.empty()) {
      return SettingProblem{SettingProblem::What::missing, std::string(field.name), {}};
    }
  }
  return std::nullopt;
}

std::string explain(const SettingProblem& problem, std::string_view owner, bool ownerWhenMissing) {
  switch (problem.what) {
    case SettingProblem::What::unknown:
      return "is not a setting of " + std::string(owner);
    case SettingProblem::What::missing:
      return ownerWhenMissing ? "is required for " + std::string(owner) : "is required";
    case SettingProblem::What::invalid:
      break;
  }
  return problem.why;
}

}  // namespace certsteward::domain
