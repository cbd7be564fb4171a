// What the PostgreSQL repositories share.
#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {

std::string q(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 16);
  int n = 0;
  for (const char c : sql) {
    if (c == '?') {
      out += '$';
      out += std::to_string(++n);
    } else {
      out += c;
    }
  }
  return out;
}

Param freeText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '\0') {
      out += "\xEF\xBF\xBD";  // U+FFFD
    } else {
      out += c;
    }
  }
  return out;
}

std::optional<domain::Timestamp> timestampAt(const Rows& rows, int row, int column) {
  if (!rows.get(row, column)) return std::nullopt;
  return domain::Timestamp{domain::Duration{rows.integer(row, column)}};
}

domain::Error notFound(const char* what) {
  return domain::makeError(domain::ErrorCode::not_found, std::string(what) + " not found");
}

domain::Error conflict(const char* message) {
  return domain::makeError(domain::ErrorCode::conflict, message);
}

std::optional<Rows> uniqueWrite(PgDatabase& db, std::string_view sql,
                                const std::vector<Param>& params, bool ownTransaction) {
  try {
    return ownTransaction ? db.exec(q(sql), params) : db.execRecoverable(q(sql), params);
  } catch (const PgError& e) {
    if (e.sqlstate() == "23505") return std::nullopt;
    throw;
  }
}

}  // namespace certsteward::adapters::postgres
