// Private store files with open(2) flags (O_EXCL, O_NOFOLLOW) and fchmod.
#include <certsteward/adapters/store/sqlite/private_files.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

namespace certsteward::adapters::sqlite {

using domain::ErrorCode;
using domain::makeError;

namespace {

domain::Error failed(const std::string& what, const std::string& path) {
  return makeError(ErrorCode::unavailable, what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

domain::Status createPrivateDirectories(const std::string& directory) {
  if (directory.empty()) return {};
  std::vector<std::filesystem::path> missing;
  std::error_code ec;
  for (std::filesystem::path p = directory; !p.empty() && !std::filesystem::exists(p, ec);
       p = p.parent_path()) {
    missing.push_back(p);
    if (p == p.parent_path()) break;
  }
  for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
    if (::mkdir(it->c_str(), 0700) != 0 && errno != EEXIST) {
      return failed("cannot create the directory", it->string());
    }
    // mkdir's mode passes through the umask: set it as meant.
    if (::chmod(it->c_str(), 0700) != 0) return failed("cannot restrict", it->string());
  }
  return {};
}

domain::Status makeDatabaseFilePrivate(const std::string& path) {
  if (path.empty() || path == ":memory:" || path.starts_with("file:")) return {};
  // The operator's own links are followed here (store.url is theirs); backups never follow one.
  // A file this user may not write or does not own (a read-only `audit verify` by another
  // account) is left as it is: SQLite opens it as it can, and its owner's runs restrict it.
  const auto notOurs = [] { return errno == EACCES || errno == EPERM || errno == EROFS; };
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return notOurs() ? domain::Status{} : failed("cannot open the database file", path);
  const bool restricted = ::fchmod(fd, 0600) == 0 || notOurs();
  ::close(fd);
  if (!restricted) return failed("cannot restrict", path);
  for (const char* suffix : {"-wal", "-shm"}) {
    const std::string side = path + suffix;
    const int f = ::open(side.c_str(), O_RDONLY | O_CLOEXEC);
    if (f < 0) continue;  // absent: SQLite creates it with the database's mode
    const bool ok = ::fchmod(f, 0600) == 0 || notOurs();
    ::close(f);
    if (!ok) return failed("cannot restrict", side);
  }
  return {};
}

domain::Result<FileIdentity> createPrivateFile(const std::string& path, int* keepOpen) {
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) {
      return makeError(ErrorCode::failed_precondition,
                       path + " exists (a file or a link); a backup never overwrites anything");
    }
    return failed("cannot create", path);
  }
  struct stat st {};
  const bool ok = ::fchmod(fd, 0600) == 0 && ::fstat(fd, &st) == 0;
  if (!ok || keepOpen == nullptr) ::close(fd);
  if (!ok) return failed("cannot restrict", path);
  if (keepOpen != nullptr) *keepOpen = fd;
  return FileIdentity{static_cast<unsigned long long>(st.st_dev),
                      static_cast<unsigned long long>(st.st_ino)};
}

std::optional<FileIdentity> regularFileIdentity(const std::string& path, unsigned* mode) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  if (mode != nullptr) *mode = static_cast<unsigned>(st.st_mode & 07777);
  return FileIdentity{static_cast<unsigned long long>(st.st_dev),
                      static_cast<unsigned long long>(st.st_ino)};
}

}  // namespace certsteward::adapters::sqlite
