// What the SQLite repositories of projects, users and memberships share: a stored JSON document
// decoded, the not-found error, writes that may hit a UNIQUE constraint, and a page of a query.
// Included only by the adapter's own .cpp files.
#pragma once

#include <functional>
#include <string>

#include <certsteward/adapters/store/codec/json_codec.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/domain/pagination.hpp>

namespace certsteward::adapters::sqlite {

// The entity whose JSON document is in `column`; throws SqliteError when it is corrupt.
template <class T>
T readDocument(const Statement& s, int column) {
  auto decoded = codec::decode<T>(s.text(column));
  if (!decoded) throw SqliteError(0, "stored document is corrupt");
  return std::move(*decoded);
}

// not_found, "<what> not found".
domain::Error notFound(const char* what);

// conflict with `message`.
domain::Error conflict(const char* message);

// Runs a write that may hit a UNIQUE constraint, reporting `message` for it.
template <class F>
domain::Status uniqueWrite(F&& body, const char* message) {
  try {
    return body();
  } catch (const SqliteError& e) {
    if ((e.code() & 0xff) == 19 /* SQLITE_CONSTRAINT */) return conflict(message);
    throw;
  }
}

// One page: `countSql` counts, `selectSql` (ending in LIMIT ? OFFSET ?) selects the documents;
// `bind` binds the parameters both share.
template <class T>
domain::Page<T> pageOf(Connection& c, const std::string& countSql, const std::string& selectSql,
                       const domain::PageRequest& request,
                       const std::function<void(Statement&)>& bind) {
  domain::Page<T> page;
  page.page = request.page;
  page.page_size = request.page_size;
  auto count = c.prepare(countSql);
  bind(count);
  count.step();
  page.total = count.integer(0);
  auto s = c.prepare(selectSql);
  bind(s);
  s.bind(request.page_size).bind(request.offset());
  while (s.step())
    page.items.push_back(readDocument<T>(s, 0));
  return page;
}

}  // namespace certsteward::adapters::sqlite
