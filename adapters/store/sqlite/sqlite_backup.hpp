// Backup and restore of a SQLite store file, for the operator's commands (`certsteward backup`,
// `certsteward restore`). Not a port: only the SQLite store has a file to copy.
#pragma once

#include <string>

#include "domain/result.hpp"
#include "domain/time.hpp"

namespace certsteward::adapters::sqlite {

// A consistent copy of the store at `source` into the new file `destination` (VACUUM INTO:
// one read transaction, so a running server may go on writing). failed_precondition when the
// destination exists; unavailable when the source cannot be read.
domain::Status backupDatabase(const std::string& source, const std::string& destination);

// Replaces the store at `target` with the backup at `backup`. Refused — failed_precondition,
// nothing changed — when the backup is not a CertSteward store, or when a server uses the target
// (a scheduler lease that runs past `now`). The target's WAL files are removed with it.
domain::Status restoreDatabase(const std::string& backup, const std::string& target,
                               domain::Timestamp now);

}  // namespace certsteward::adapters::sqlite
