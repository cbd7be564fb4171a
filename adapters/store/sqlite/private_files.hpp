// The store's files on disk are private whatever the umask: directories the server creates for
// it are 0700; the database and its WAL and shared-memory files are 0600 (SQLite gives the WAL
// and -shm files the database's mode); a backup is a new file, 0600, never written through a
// symbolic link or over an existing file.
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/result.hpp>

namespace certsteward::adapters::sqlite {

// Creates the missing directories of `directory`, each 0700 (existing ones are left as they are).
domain::Status createPrivateDirectories(const std::string& directory);

// Creates the database file at `path` if absent and sets it, and its -wal and -shm files where
// present, to 0600.
domain::Status makeDatabaseFilePrivate(const std::string& path);

// Creates `path` as a new empty file, 0600: failed_precondition when anything exists there,
// a symbolic link (even a dangling one) included. Returns the file's device and inode, so that
// the caller can check that what it later wrote is still that file.
struct FileIdentity {
  unsigned long long device = 0;
  unsigned long long inode = 0;
  friend bool operator==(const FileIdentity&, const FileIdentity&) = default;
};
// With `keepOpen`, the new file's descriptor (O_RDWR) is left open in it: the caller closes it.
domain::Result<FileIdentity> createPrivateFile(const std::string& path, int* keepOpen = nullptr);

// The identity of the file at `path` without following a link; nullopt when it is absent or is
// not a regular file.
std::optional<FileIdentity> regularFileIdentity(const std::string& path, unsigned* mode = nullptr);

}  // namespace certsteward::adapters::sqlite
