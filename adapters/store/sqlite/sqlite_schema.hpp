// Versioned, forward-only schema migrations of the SQLite store.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>

namespace certsteward::adapters::sqlite {

// The newest schema version this binary knows.
int latestSchemaVersion();

// Applies every migration newer than the database's version, each in its own transaction,
// recording it in schema_migrations. failed_precondition when the database is newer than this
// binary (an older binary must not write a newer schema).
domain::Status migrate(Connection& connection);

}  // namespace certsteward::adapters::sqlite
