// What the PostgreSQL repositories share: statement text written with `?` placeholders (as the
// SQLite store's), parameters in PostgreSQL's text form, stored documents decoded, the
// not-found and conflict errors, and a page of a query. Included only by the adapter's own .cpp
// files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/adapters/store/codec/json_codec.hpp>
#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/domain/pagination.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::postgres {

// `sql` with each `?` replaced by $1, $2, ... in order (no statement of the adapter has a `?`
// of its own: no string literal holds one and no jsonb `?` operator is used).
std::string q(std::string_view sql);

// Parameters, as text.
inline Param p(std::string v) {
  return Param(std::move(v));
}
inline Param p(std::string_view v) {
  return Param(std::string(v));
}
inline Param p(const char* v) {
  return Param(std::string(v));
}
inline Param p(std::int64_t v) {
  return Param(std::to_string(v));
}
inline Param p(int v) {
  return Param(std::to_string(v));
}
inline Param p(bool v) {
  return Param(std::string(v ? "t" : "f"));
}
inline Param p(domain::Timestamp t) {  // milliseconds since the epoch, as the schema keeps times
  return Param(std::to_string(t.time_since_epoch().count()));
}
template <class T>
Param p(const std::optional<T>& v) {
  return v ? p(*v) : Param();
}

// A message column's text (a job log line, an event, a CA's answer), which may quote what a
// remote server sent: PostgreSQL's text holds no NUL, so each becomes U+FFFD, where the other
// stores keep it (every other value with a NUL is refused).
Param freeText(std::string_view text);

// The time in (row, column), nullopt for NULL.
std::optional<domain::Timestamp> timestampAt(const Rows& rows, int row, int column);

// The entity whose JSON document is in (row, column); throws PgError when it is corrupt.
template <class T>
T document(const Rows& rows, int row, int column) {
  auto decoded = codec::decode<T>(rows.text(row, column));
  if (!decoded) throw PgError("XX001", "stored document is corrupt");
  return std::move(*decoded);
}

// Every document of the first column.
template <class T>
std::vector<T> documents(const Rows& rows) {
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(rows.size()));
  for (int i = 0; i < rows.size(); ++i)
    out.push_back(document<T>(rows, i, 0));
  return out;
}

// not_found, "<what> not found".
domain::Error notFound(const char* what);

// conflict with `message`.
domain::Error conflict(const char* message);

// Runs a write that may break a unique constraint: its rows, or nullopt when a unique
// constraint refused it. Other errors throw PgError. Inside a caller's transaction it runs under
// a savepoint, so that the caller can answer the conflict and go on; `ownTransaction`: the
// transaction is the repository's own, which ends on the conflict anyway (no savepoint).
std::optional<Rows> uniqueWrite(PgDatabase& db, std::string_view sql,
                                const std::vector<Param>& params, bool ownTransaction = false);

// One page from one snapshot: `countSql` counts and `selectSql` (ending in LIMIT ? OFFSET ?)
// selects documents, both written with `?` and sharing `params`.
template <class T>
domain::Result<domain::Page<T>> pageOf(PgDatabase& db, std::string_view countSql,
                                       std::string_view selectSql, const std::vector<Param>& params,
                                       const domain::PageRequest& request) {
  domain::Page<T> page;
  page.page = request.page;
  page.page_size = request.page_size;
  auto done = db.snapshot([&]() -> domain::Status {
    page.total = db.exec(q(countSql), params).integer(0, 0);
    auto withPage = params;
    withPage.push_back(p(request.page_size));
    withPage.push_back(p(request.offset()));
    page.items = documents<T>(db.exec(q(selectSql), withPage));
    return {};
  });
  if (!done) return done.error();
  return page;
}

}  // namespace certsteward::adapters::postgres
