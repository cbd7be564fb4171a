// CSV as the list exports write it (RFC 4180, CRLF line ends).
#pragma once

#include <string>
#include <string_view>

#include <certsteward/adapters/http/http_types.hpp>

namespace certsteward::adapters::rest {

// Appends one field: quoted when it holds a comma, a quote or a line break (quotes doubled). A
// field a spreadsheet would run as a formula (starting with = + - @, a tab or a carriage return)
// is quoted with a leading apostrophe, so an exported text cannot become a formula.
void appendCsvField(std::string& out, std::string_view value);

// Whether a request asks for CSV: `format=csv`, or `Accept` naming text/csv. The one rule for
// the handler that answers it and for the transport that runs it on the request pool.
bool asksForCsv(const http::HttpRequest& request);

}  // namespace certsteward::adapters::rest
