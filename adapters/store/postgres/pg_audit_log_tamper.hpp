// For tests only (no library or binary of the project compiles it): rewrites a stored audit
// entry in place, as someone with write access to the database could, through a connection of
// its own — PgAuditLog has no way to do it.
#pragma once

#include <stdexcept>
#include <string>

#include <certsteward/adapters/store/codec/json_codec.hpp>
#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/adapters/store/postgres/pg_documents.hpp>
#include <certsteward/domain/audit.hpp>

namespace certsteward::adapters::postgres {

struct PgAuditLogTamper {
  // `url`: the store's connection string. Replaces the row of `entry.id` with `entry`. Throws
  // std::runtime_error or PgError.
  static void tamper(const std::string& url, const domain::AuditEntry& entry) {
    auto db = PgDatabase::open(url, PgOptions{.pool_size = 1});
    if (!db) throw std::runtime_error(db.error().message);
    (*db)->exec(q("UPDATE audit_log SET action = ?, resource_type = ?, ts = ?, checksum = ?, "
                  "doc = ? WHERE id = ?"),
                {p(entry.action), p(entry.resource_type), p(entry.timestamp), p(entry.checksum),
                 p(codec::encode(entry)), p(entry.id)});
  }
};

}  // namespace certsteward::adapters::postgres
