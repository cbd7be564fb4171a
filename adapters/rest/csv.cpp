#include <certsteward/adapters/rest/csv.hpp>

namespace certsteward::adapters::rest {

void appendCsvField(std::string& out, std::string_view value) {
  const char first = value.empty() ? '\0' : value.front();
  const bool formula = first == '=' || first == '+' || first == '-' || first == '@' ||
                       first == '\t' || first == '\r';
  const bool quote = formula || value.find_first_of(",\"\r\n") != std::string_view::npos;
  if (quote) out += '"';
  if (formula) out += '\'';
  for (const char ch : value) {
    if (ch == '"') out += '"';
    out += ch;
  }
  if (quote) out += '"';
}

}  // namespace certsteward::adapters::rest
