// For tests only (no library or binary of the project compiles it): rewrites a stored audit
// entry in place, as someone with write access to the database could, through a connection of
// its own — MongoAuditLog has no way to do it.
#pragma once

#include <stdexcept>
#include <string>

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/domain/audit.hpp>

namespace certsteward::adapters::mongo {

struct MongoAuditLogTamper {
  // `uri`: the one the store was opened with. Replaces the document of `entry.id` with `entry`.
  // Throws std::runtime_error when the server cannot be reached, MongoError when the write fails.
  static void tamper(const std::string& uri, const domain::AuditEntry& entry) {
    auto db = MongoDatabase::open(uri);
    if (!db) throw std::runtime_error(db.error().message);
    auto c = (*db)->client();
    Bson doc = Bson::fromJson(codec::encode(entry));
    doc.oid("_id", idOid(entry.id));
    c.replaceOne("audit_log", Bson().oid("_id", idOid(entry.id)), doc);
  }
};

}  // namespace certsteward::adapters::mongo
