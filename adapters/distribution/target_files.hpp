// The file-writing half shared by the `ssh` and `file` modules: what goes where, and the
// deliver / restore / plan steps over a TargetFileSystem (SFTP on a host, or this machine).
//
// Deliver, per target: compare each file with what is there (unchanged files are left alone);
// write each changed one to "<path>.certsteward-new" with its final mode from the first byte
// (0600 for the key, always); set the replaced file aside as "<path>.certsteward-previous"
// (bytes and mode exactly; a private key's always 0600); move the new one into place; run the
// reload command; check the served certificate. A failure at any step puts every replaced file back
// (and reloads again), so the target is left as it was. Restore puts the "-previous" files back
// (keeping them, so a retried rollback does the same again) and reloads; it never deletes: a file
// the delivery created is kept (and said so in a step), as the server may refer to it by now.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <certsteward/domain/distribution.hpp>
#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/ports/distribution_module.hpp>

namespace certsteward::adapters::distribution {

inline constexpr const char* kNewSuffix = ".certsteward-new";
inline constexpr const char* kPreviousSuffix = ".certsteward-previous";

// Errors carry a target error code as their `reason` (WRITE_FAILED, TIMEOUT, CONNECT_FAILED,
// RELOAD_FAILED); the message is for a person and never holds a file's content.
class TargetFileSystem {
 public:
  struct FileState {
    bool exists = false;
    bool directory = false;
    unsigned mode = 0;  // permission bits
  };
  virtual ~TargetFileSystem() = default;
  virtual domain::Result<FileState> stat(const std::string& path) = 0;
  // At most 1 MiB.
  virtual domain::Result<std::string> read(const std::string& path) = 0;
  // Creates or truncates `path`, with `mode` from the start, and writes `bytes`.
  virtual domain::Status write(const std::string& path, const std::string& bytes,
                               unsigned mode) = 0;
  // Replaces `aside` with what `path` holds now: its bytes, and its mode unless `mode` is given
  // (a private key's copy is always 0600); `path` stays as it is.
  virtual domain::Status keepAside(const std::string& path, const std::string& aside,
                                   std::optional<unsigned> mode) = 0;
  // Makes each `path` the file `from` (replacing it), atomically where the target can, in order;
  // on failure some may have moved already.
  using Moves = std::vector<std::pair<std::string, std::string>>;  // from, path
  virtual domain::Status installAll(const Moves& moves) = 0;
  // installAll, then (when all moved) runs `command` (empty: none). Errors say which step failed
  // through their reason: WRITE_FAILED for a move, RELOAD_FAILED or TIMEOUT for the command.
  virtual domain::Status installAllThenRun(const Moves& moves, const std::string& command) {
    if (auto s = installAll(moves); !s) return s;
    return command.empty() ? domain::Status{} : run(command);
  }
  // Removes `path`; absent is fine.
  virtual domain::Status remove(const std::string& path) = 0;
  // Creates the directory `dir` with `mode` (its parent must exist); an existing directory is
  // fine, anything else at that name (a file, a symbolic link) is WRITE_FAILED.
  virtual domain::Status makeDirectory(const std::string& dir, unsigned mode) = 0;
  // Whether files can be created in `dir` (changes nothing).
  virtual domain::Result<bool> writableDirectory(const std::string& dir) = 0;
  // Runs the reload command; ok when it succeeded.
  virtual domain::Status run(const std::string& command) = 0;
  // Ok when the command can be run (found and executable).
  virtual domain::Status commandExists(const std::string& command) = 0;
};

// The files of a version, as the settings place them.
struct PlannedFile {
  std::string path;
  std::string content;  // the key's: secret
  unsigned mode = 0644;
  bool secret = false;  // the private key: every copy of it is 0600
};
std::vector<PlannedFile> filesFor(const domain::Settings& settings,
                                  const domain::CertificateVersion& version);

// The directory a path's file is in ("/" for a file at the root).
std::string directoryOf(const std::string& path);

// The served-certificate check after a reload: nullopt when fine, else why not.
using VerifyServed =
    std::function<std::optional<std::string>(const domain::Settings&, const std::string& leafPem)>;

ports::TargetOutcome planFiles(TargetFileSystem& fs, const ports::TargetAccess& target,
                               const domain::CertificateVersion& next);
ports::TargetOutcome deliverFiles(TargetFileSystem& fs, const ports::TargetAccess& target,
                                  const domain::CertificateVersion& next,
                                  const VerifyServed& verify);
ports::TargetOutcome restoreFiles(TargetFileSystem& fs, const ports::TargetAccess& target);

// HTTP-01 through the target's `webroot` setting: the token file (0644) below
// <webroot>/.well-known/acme-challenge/, the two directories made (0755) when missing; and its
// removal. The webroot itself must exist.
ports::TargetOutcome putChallengeFile(TargetFileSystem& fs, const ports::TargetAccess& target,
                                      const std::string& token, const std::string& content);
ports::TargetOutcome removeChallengeFile(TargetFileSystem& fs, const ports::TargetAccess& target,
                                         const std::string& token);

// A failed step as a target outcome: the error's reason when it is a target code, else `code`.
ports::TargetOutcome outcomeOf(const domain::Error& error, const char* code);

}  // namespace certsteward::adapters::distribution
