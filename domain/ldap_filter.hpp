// LDAP search filters built from user input (RFC 4515): a username is always a value, never
// filter syntax, so "*)(uid=*" matches nobody.
#pragma once

#include <string>
#include <string_view>

namespace certsteward::domain {

// `value` with the characters RFC 4515 reserves in an assertion value written as \XX: '*', '(',
// ')', '\' and NUL (every other byte, UTF-8 included, stays as it is).
std::string escapeFilterValue(std::string_view value);

// `filterTemplate` with every "{username}" replaced by the escaped username, e.g.
// "(&(objectClass=person)(uid={username}))".
std::string userFilter(std::string_view filterTemplate, std::string_view username);

}  // namespace certsteward::domain
