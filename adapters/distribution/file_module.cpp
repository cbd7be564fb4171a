// Certificate files on this machine.
#include "adapters/distribution/file_module.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <optional>

#include "adapters/common/command_runner.hpp"
#include "adapters/distribution/net.hpp"
#include "adapters/distribution/target_files.hpp"

namespace certsteward::adapters::distribution {

using domain::ErrorCode;
using domain::makeError;

namespace {

domain::Error failed(const std::string& what, const std::string& path) {
  return makeError(ErrorCode::unavailable, what + " " + path + ": " + std::strerror(errno),
                   "WRITE_FAILED");
}

class LocalFileSystem : public TargetFileSystem {
 public:
  LocalFileSystem(const std::vector<std::string>& allowed, std::chrono::milliseconds timeout)
      : allowed_(allowed), timeout_(timeout) {}

  domain::Result<FileState> stat(const std::string& path) override {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return FileState{};
      return failed("cannot inspect", path);
    }
    if (S_ISLNK(st.st_mode)) {  // never written through: it could point anywhere
      errno = ELOOP;
      return failed("refusing the symbolic link", path);
    }
    return FileState{true, S_ISDIR(st.st_mode), static_cast<unsigned>(st.st_mode & 07777)};
  }

  domain::Result<std::string> read(const std::string& path) override {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) return failed("cannot read", path);
    std::string out;
    char buf[8192];
    for (;;) {
      const auto n = ::read(fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
      if (out.size() > (1u << 20)) break;
    }
    ::close(fd);
    return out;
  }

  domain::Status write(const std::string& path, const std::string& bytes, unsigned mode) override {
    ::unlink(path.c_str());  // a leftover temporary, never followed
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                          static_cast<mode_t>(mode & 0600));
    if (fd < 0) return failed("cannot create", path);
    std::size_t done = 0;
    while (done < bytes.size()) {
      const auto n = ::write(fd, bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const auto error = failed("cannot write", path);
        ::close(fd);
        ::unlink(path.c_str());
        return error;
      }
      done += static_cast<std::size_t>(n);
    }
    if (::fchmod(fd, static_cast<mode_t>(mode)) != 0 || ::fsync(fd) != 0) {
      const auto error = failed("cannot finish", path);
      ::close(fd);
      ::unlink(path.c_str());
      return error;
    }
    ::close(fd);
    return {};
  }

  domain::Status keepAside(const std::string& path, const std::string& aside) override {
    if (::unlink(aside.c_str()) != 0 && errno != ENOENT) return failed("cannot replace", aside);
    if (::link(path.c_str(), aside.c_str()) != 0) return failed("cannot keep", path);
    return {};
  }

  domain::Status installAll(const Moves& moves) override {
    for (const auto& [from, path] : moves) {
      if (::rename(from.c_str(), path.c_str()) != 0) return failed("cannot move into place", path);
    }
    return {};
  }

  domain::Status remove(const std::string& path) override {
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) return failed("cannot remove", path);
    return {};
  }

  domain::Result<bool> writableDirectory(const std::string& dir) override {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) return false;
    return ::access(dir.c_str(), W_OK | X_OK) == 0;
  }

  domain::Status run(const std::string& command) override {
    if (auto s = commandExists(command); !s) return s;
    common::Command c;
    c.path = command;
    c.timeout = timeout_;
    c.what = "the reload command " + command;
    auto done = common::runCommand(c);
    if (!done) {
      return makeError(ErrorCode::unavailable, done.error().message,
                       done.error().reason == "TIMEOUT" ? "TIMEOUT" : "RELOAD_FAILED");
    }
    return {};
  }

  domain::Status commandExists(const std::string& command) override {
    if (std::find(allowed_.begin(), allowed_.end(), command) == allowed_.end()) {
      return makeError(ErrorCode::failed_precondition,
                       "the reload command " + command +
                           " is not one of the server's distribution.exec_commands",
                       "RELOAD_FAILED");
    }
    if (::access(command.c_str(), X_OK) != 0) {
      return makeError(ErrorCode::failed_precondition,
                       "the reload command " + command + " cannot be run: " + std::strerror(errno),
                       "RELOAD_FAILED");
    }
    return {};
  }

 private:
  const std::vector<std::string>& allowed_;
  std::chrono::milliseconds timeout_;
};

// Whether every file of the target lies in one of `allowed` (symbolic links resolved).
std::optional<std::string> outsideAllowed(const domain::Settings& settings,
                                          const std::vector<std::string>& allowed) {
  for (const auto& f : filesFor(settings, {})) {
    const std::string dir = directoryOf(f.path);
    char resolved[PATH_MAX];
    const bool found = ::realpath(dir.c_str(), resolved) != nullptr;
    const bool inside =
        found && std::any_of(allowed.begin(), allowed.end(), [&](const std::string& a) {
          char root[PATH_MAX];
          if (::realpath(a.c_str(), root) == nullptr) return false;
          const std::string r = root, d = resolved;
          return d == r || d.starts_with(r == "/" ? r : r + "/");
        });
    if (!inside) return f.path;
  }
  return std::nullopt;
}

ports::TargetOutcome refused(const std::string& path) {
  return ports::TargetOutcome::failure(
      domain::target_error::write_failed,
      path + " is not below one of the server's distribution.file_directories");
}

}  // namespace

ports::TargetOutcome FileModule::plan(const ports::TargetAccess& target,
                                      const domain::CertificateVersion& next) {
  if (auto path = outsideAllowed(target.settings, settings_.file_directories))
    return refused(*path);
  LocalFileSystem fs(settings_.exec_commands, millis(target.timeout));
  return planFiles(fs, target, next);
}

ports::TargetOutcome FileModule::deliver(const ports::TargetAccess& target,
                                         const domain::CertificateVersion& next) {
  if (auto path = outsideAllowed(target.settings, settings_.file_directories))
    return refused(*path);
  LocalFileSystem fs(settings_.exec_commands, millis(target.timeout));
  return deliverFiles(fs, target, next, [&](const domain::Settings& s, const std::string& leaf) {
    return checkServedCertificate(s, leaf, std::min(millis(target.timeout), verifyPatience()));
  });
}

ports::TargetOutcome FileModule::restore(const ports::TargetAccess& target,
                                         const domain::CertificateVersion*) {
  if (auto path = outsideAllowed(target.settings, settings_.file_directories))
    return refused(*path);
  LocalFileSystem fs(settings_.exec_commands, millis(target.timeout));
  return restoreFiles(fs, target);
}

ports::TargetOutcome FileModule::check(const ports::TargetAccess& target) {
  if (auto path = outsideAllowed(target.settings, settings_.file_directories))
    return refused(*path);
  LocalFileSystem fs(settings_.exec_commands, millis(target.timeout));
  for (const auto& f : filesFor(target.settings, {})) {
    const std::string dir = directoryOf(f.path);
    auto writable = fs.writableDirectory(dir);
    if (!writable || !*writable) {
      return ports::TargetOutcome::failure(domain::target_error::write_failed,
                                           "cannot create files in " + dir);
    }
  }
  return ports::TargetOutcome::success();
}

}  // namespace certsteward::adapters::distribution
