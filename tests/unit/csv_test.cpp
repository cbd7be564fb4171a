// The CSV field writer of the list exports: plain fields as they are, quoting where RFC 4180
// needs it, and no field a spreadsheet would run as a formula.
#include <doctest/doctest.h>

#include <string>

#include <certsteward/adapters/rest/csv.hpp>

using certsteward::adapters::rest::appendCsvField;

namespace {
std::string field(std::string_view v) {
  std::string out;
  appendCsvField(out, v);
  return out;
}
}  // namespace

TEST_CASE("csv: fields are quoted where needed and never become formulas") {
  struct Case {
    std::string_view in;
    std::string_view out;
  };
  const Case cases[] = {
      {"", ""},
      {"www.example.com", "www.example.com"},
      {"a b", "a b"},
      {"a,b", "\"a,b\""},
      {"say \"hi\"", "\"say \"\"hi\"\"\""},
      {"line\nbreak", "\"line\nbreak\""},
      {"cr\r", "\"cr\r\""},
      {"=HYPERLINK(\"http://x\")", "\"'=HYPERLINK(\"\"http://x\"\")\""},
      {"+1", "\"'+1\""},
      {"-1", "\"'-1\""},
      {"@SUM(A1)", "\"'@SUM(A1)\""},
      {"\tx", "\"'\tx\""},
      {"a=b", "a=b"},  // only the first character starts a formula
  };
  for (const auto& c : cases) {
    CHECK_MESSAGE(field(c.in) == c.out, c.in);
  }
  std::string row;
  appendCsvField(row, "a");
  row += ',';
  appendCsvField(row, "b,c");
  CHECK(row == "a,\"b,c\"");
}
