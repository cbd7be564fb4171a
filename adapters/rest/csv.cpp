#include <certsteward/adapters/rest/csv.hpp>

#include <certsteward/domain/text.hpp>

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

bool asksForCsv(const http::HttpRequest& request) {
  if (const auto format = request.query.find("format"); format != request.query.end()) {
    return format->second == "csv";
  }
  const auto accept = request.header("accept");
  return accept && domain::asciiLower(*accept).find("text/csv") != std::string::npos;
}

}  // namespace certsteward::adapters::rest
