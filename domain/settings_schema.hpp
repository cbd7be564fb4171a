// The description of a pluggable kind's settings — a DNS provider, a distribution module, a
// notification channel kind, a credential kind — field by field: its name, label, type, whether
// it is required, its default, a help line and an example. The one description is both what the
// validators check and what GET /api/v1/catalog serves to build forms, so the two cannot
// disagree (docs/api.md, "Catalog").
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace certsteward::domain {

// A kind's settings: a string map, as the API takes them.
using Settings = std::map<std::string, std::string>;

enum class FieldType {
  string,          // one line
  text,            // several lines
  integer,         // decimal, within [min, max]
  boolean,         // "true" or "false"
  enumeration,     // one of `values` (named "enum" in the API)
  secret,          // write-only: never returned, shown as "configured"
  path,            // absolute, without "." or ".." segments
  url,             // https:// (http:// to a loopback host where `loopback_http`)
  host,            // a host name or an IP address
  host_port,       // host:port (the port may be left out where `port_optional`)
  host_port_list,  // comma-separated host[:port]
  pem,             // PEM certificates
  email,           // an address
  email_list,      // comma-separated addresses
  headers,         // "Name: value" lines
  template_text,   // text with {{variables}} (named "template" in the API)
  fingerprint,     // an SSH host key fingerprint, SHA256:<base64>
  credential,      // the id of a project credential of one of `credential_kinds`
};

// The API's name of a type: "string", "enum", "template", ...
std::string_view nameOf(FieldType type) noexcept;

// Where a field's value goes in the resource: in its `settings` map, or as a property of the
// resource itself (`secret`, `username`; `credential_id` of a module's target).
enum class FieldPlace { settings, body };

// For a distribution module's fields: whether each target sets its own value (`target`), or the
// module configuration's value serves every target unless a target overrides it (`shared`).
enum class FieldScope { none, target, shared };

std::string_view nameOf(FieldScope scope) noexcept;

struct FieldSpec {
  std::string_view name;
  std::string_view label;
  FieldType type = FieldType::string;
  bool required = false;
  std::string_view default_value{};
  std::string_view help{};
  std::string_view example{};  // a valid value; the form's placeholder
  FieldPlace place = FieldPlace::settings;
  FieldScope scope = FieldScope::none;
  std::vector<std::string_view> values{};  // enumeration
  // enumeration: the values are a list of the server's configuration (e.g. "dns.exec_commands"),
  // filled in when the catalog is served and checked by the kind's own rule.
  std::string_view values_from{};
  std::int64_t min = 0, max = 0;                     // integer bounds, inclusive
  std::size_t max_length = 0;                        // 0: the type's own bound
  bool loopback_http = false;                        // url: http:// to a loopback host too
  bool port_optional = false;                        // host_port
  bool multiline = false;                            // secret: several lines (a private key)
  std::vector<std::string_view> credential_kinds{};  // credential
};

struct KindSpec {
  std::string_view name;
  std::string_view label;
  std::string_view summary;
  std::vector<FieldSpec> fields;
};

// The field named `name` in `place`, or nullptr.
const FieldSpec* findField(const KindSpec& kind, std::string_view name,
                           FieldPlace place = FieldPlace::settings);

// The kind named `name` in `kinds`, or nullptr.
const KindSpec* findKind(const std::vector<KindSpec>& kinds, std::string_view name);

// The names of `kinds`, comma-separated ("ssh, file, haproxy, webhook").
std::string kindNames(const std::vector<KindSpec>& kinds);

// What is wrong with one value of a field ("must be 1..65535"), empty when nothing is: its
// length, control characters (a multi-line type allows line breaks and tabs) and its type's
// syntax. A `values_from` enumeration is checked by its kind's rule, not here.
std::string valueProblem(const FieldSpec& field, std::string_view value);

// The first problem of a settings map against its kind, in key order: a key that is no settings
// field of the kind, a value with a problem, or (with `requireFields`) a required settings field
// that is absent or empty.
struct SettingProblem {
  enum class What { unknown, missing, invalid } what;
  std::string key;
  std::string why;  // for `invalid`: valueProblem's words
};
std::optional<SettingProblem> settingsProblem(const KindSpec& kind, const Settings& settings,
                                              bool requireFields);

// The problem in words, after the setting's name: "is not a setting of <owner>", "is required"
// ("is required for <owner>" with `ownerWhenMissing`), or valueProblem's words.
std::string explain(const SettingProblem& problem, std::string_view owner,
                    bool ownerWhenMissing = false);

// The items of a comma-separated list, trimmed of spaces and tabs, empty items dropped.
std::vector<std::string> commaSeparated(std::string_view text);

// The problem of "Name: value" header lines (at most 20; names are HTTP tokens; none may set
// what the service sets itself), empty when there is none.
std::string headerLinesProblem(std::string_view text);

// An SSH host key fingerprint as `ssh-keygen -lf` prints it: SHA256:<43 base64 characters>.
bool isSshFingerprint(std::string_view text);

// Absolute, normalised: no "." or ".." segment, no empty segment, no trailing slash, at most
// 1024 characters.
bool isCleanAbsolutePath(std::string_view path);

}  // namespace certsteward::domain
