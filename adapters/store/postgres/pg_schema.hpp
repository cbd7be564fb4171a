// Versioned, forward-only schema migrations of the PostgreSQL store.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>

namespace certsteward::adapters::postgres {

// The newest schema version this binary knows.
int latestSchemaVersion();

// Applies every migration newer than the database's version, each in its own transaction and
// recorded in schema_migrations. Several processes may call it at once: a transaction-scoped
// advisory lock lets one migrate while the others wait, then find it done. failed_precondition
// when the database is newer than this binary (an older binary must not write a newer schema).
domain::Status migrate(PgDatabase& db);

}  // namespace certsteward::adapters::postgres
