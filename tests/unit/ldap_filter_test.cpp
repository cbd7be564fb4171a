// RFC 4515 escaping of usernames in LDAP filters: input is always a value, never syntax.
#include <doctest/doctest.h>

#include <string>

#include "domain/ldap_filter.hpp"

using certsteward::domain::escapeFilterValue;
using certsteward::domain::userFilter;

TEST_CASE("ldap filter: values are escaped per RFC 4515") {
  struct Row {
    std::string in;
    std::string out;
  };
  const Row rows[] = {
      {"alice", "alice"},
      {"*", "\\2a"},
      {"*)(uid=*", "\\2a\\29\\28uid=\\2a"},
      {"a\\b", "a\\5cb"},
      {std::string("nul\0x", 5), "nul\\00x"},
      {"jürgen", "jürgen"},  // UTF-8 stays as it is
      {"", ""},
      {"o'brien.smith@example.com", "o'brien.smith@example.com"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.in);
    CHECK(escapeFilterValue(row.in) == row.out);
  }
}

TEST_CASE("ldap filter: the template's {username} is replaced by the escaped name, everywhere") {
  CHECK(userFilter("(uid={username})", "alice") == "(uid=alice)");
  CHECK(userFilter("(uid={username})", "*)(uid=*") == "(uid=\\2a\\29\\28uid=\\2a)");
  CHECK(userFilter("(|(uid={username})(mail={username}))", "bob") == "(|(uid=bob)(mail=bob))");
  CHECK(userFilter("(objectClass=person)", "bob") == "(objectClass=person)");
  CHECK(userFilter("(cn={username}", "{username}") == "(cn={username}");  // no re-expansion
}
