// Backup and restore of a SQLite store file, for the operator's commands (`certsteward backup`,
// `certsteward restore`). Not a port: only the SQLite store has a file to copy.
#pragma once

#include <string>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::sqlite {

// A consistent copy of the store at `source` into the new file `destination` (VACUUM INTO:
// one read transaction, so a running server may go on writing), created 0600 and never through
// a symbolic link. failed_precondition when anything exists at the destination (a dangling link
// included); unavailable when the source cannot be read.
domain::Status backupDatabase(const std::string& source, const std::string& destination);

// Replaces the store at `target` with the backup at `backup` (the new file 0600). Refused —
// failed_precondition, nothing changed — when the backup is a symbolic link or not a regular
// file, is open to other users (any group or other permission bit), is not a CertSteward store,
// or when a server uses the target (a scheduler lease that runs past `now`). The target's WAL
// files are removed with it.
domain::Status restoreDatabase(const std::string& backup, const std::string& target,
                               domain::Timestamp now);

}  // namespace certsteward::adapters::sqlite
