// For tests only (no library or binary of the project compiles it): rewrites a stored audit
// entry in place, as someone with write access to the file could, through a connection of its
// own — SqliteAuditLog has no way to do it.
#pragma once

#include <chrono>
#include <string>

#include <certsteward/adapters/store/codec/json_codec.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/domain/audit.hpp>

namespace certsteward::adapters::sqlite {

struct SqliteAuditLogTamper {
  // `path`: the store's database file. Replaces the row of `entry.id` with `entry`. Throws
  // SqliteError.
  static void tamper(const std::string& path, const domain::AuditEntry& entry) {
    Connection c(path, std::chrono::seconds(10));
    c.prepare(
         "UPDATE audit_log SET action = ?, resource_type = ?, ts = ?, checksum = ?, doc = ? "
         "WHERE id = ?")
        .bind(entry.action)
        .bind(entry.resource_type)
        .bind(entry.timestamp)
        .bind(entry.checksum)
        .bind(codec::encode(entry))
        .bind(entry.id)
        .run();
  }
};

}  // namespace certsteward::adapters::sqlite
