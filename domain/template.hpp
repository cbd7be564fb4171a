// Message templates without logic: "{{name}}" (spaces inside the braces allowed) is replaced by
// the variable's value, escaped for where the text goes. Nothing else is interpreted. The names
// are a fixed list (docs/api.md), so a template is checked when it is saved, not when a message
// is due.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/result.hpp>

namespace certsteward::domain {

enum class Escape {
  none,  // plain text
  html,  // & < > " ' as entities
  json,  // the inside of a JSON string: " \ and control characters escaped
};

// Every variable a template may name, in the order docs/api.md lists them.
const std::vector<std::string_view>& templateVariables();

// ok, or invalid_argument (422) naming `field` and the first unknown variable, an unclosed
// "{{", or a template longer than 16 KiB.
Status checkTemplate(std::string_view field, std::string_view text);

// `text` with each "{{name}}" replaced by vars[name] (empty when absent), escaped as `escape`.
std::string renderTemplate(std::string_view text, const std::map<std::string, std::string>& vars,
                           Escape escape);

std::string escapeHtml(std::string_view text);
std::string escapeJsonString(std::string_view text);

}  // namespace certsteward::domain
