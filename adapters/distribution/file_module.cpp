// Certificate files on this machine.
#include <certsteward/adapters/distribution/file_module.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include <certsteward/adapters/common/command_runner.hpp>
#include <certsteward/adapters/distribution/net.hpp>
#include <certsteward/adapters/distribution/target_files.hpp>

namespace certsteward::adapters::distribution {

using domain::ErrorCode;
using domain::makeError;

namespace {

domain::Error failed(const std::string& what, const std::string& path) {
  return makeError(ErrorCode::unavailable, what + " " + path + ": " + std::strerror(errno),
                   "WRITE_FAILED");
}

domain::Error outsideAllowed(const std::string& path) {
  return makeError(ErrorCode::failed_precondition,
                   path + " is not below one of the server's distribution.file_directories",
                   "WRITE_FAILED");
}

// A descriptor, closed on destruction.
class Descriptor {
 public:
  explicit Descriptor(int fd = -1) : fd_(fd) {}
  Descriptor(Descriptor&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  Descriptor& operator=(Descriptor&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  ~Descriptor() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }

 private:
  int fd_;
};

// The components of an absolute path ("//" and a trailing '/' ignored); nullopt for a relative
// path or one holding "." or "..".
std::optional<std::vector<std::string>> componentsOf(const std::string& path) {
  if (path.empty() || path.front() != '/') return std::nullopt;
  std::vector<std::string> out;
  std::size_t from = 1;
  while (from <= path.size()) {
    const std::size_t slash = std::min(path.find('/', from), path.size());
    std::string part = path.substr(from, slash - from);
    from = slash + 1;
    if (part.empty()) continue;
    if (part == "." || part == "..") return std::nullopt;
    out.push_back(std::move(part));
  }
  return out;
}

// The operator's allowed directories, each opened once (as configured: the operator's own links
// are followed there), and every directory below them that a run touches, reached by a walk of
// openat(O_NOFOLLOW) from its root and held open for the whole run. Every later open, write,
// link, rename and unlink is relative to those descriptors: a directory swapped for a symbolic
// link during the run cannot steer a file out of the allowed tree.
class ConfinedTree {
 public:
  explicit ConfinedTree(const std::vector<std::string>& allowed) {
    for (const auto& root : allowed) {
      Descriptor fd(::open(root.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
      if (fd.get() < 0) continue;
      auto spelled = componentsOf(root);
      char resolved[PATH_MAX];
      auto real = ::realpath(root.c_str(), resolved) != nullptr
                      ? componentsOf(resolved)
                      : std::optional<std::vector<std::string>>{};
      const std::size_t index = roots_.size();
      roots_.push_back(std::move(fd));
      if (spelled) names_.push_back({std::move(*spelled), index});
      if (real) names_.push_back({std::move(*real), index});
    }
  }

  // The held descriptor of the directory `dir` (opened on first use), or why there is none:
  // not_found when a component does not exist (or is no directory), WRITE_FAILED errors for a
  // symbolic link on the way or a path outside every allowed directory.
  domain::Result<int> directory(const std::string& dir) {
    if (const auto held = opened_.find(dir); held != opened_.end()) return held->second.get();
    const auto parts = componentsOf(dir);
    if (!parts) return outsideAllowed(dir);
    // The longest allowed root the path lies below.
    const Root* best = nullptr;
    for (const auto& root : names_) {
      if (root.parts.size() > parts->size() ||
          !std::equal(root.parts.begin(), root.parts.end(), parts->begin()))
        continue;
      if (best == nullptr || root.parts.size() > best->parts.size()) best = &root;
    }
    if (best == nullptr) return outsideAllowed(dir);
    Descriptor current(::dup(roots_[best->index].get()));
    if (current.get() < 0) return failed("cannot open", dir);
    for (std::size_t i = best->parts.size(); i < parts->size(); ++i) {
      Descriptor next(::openat(current.get(), (*parts)[i].c_str(),
                               O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (next.get() < 0) {
        if (errno == ENOTDIR) {
          struct stat st {};
          if (::fstatat(current.get(), (*parts)[i].c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 &&
              S_ISLNK(st.st_mode)) {
            errno = ELOOP;
          }
        }
        const int why = errno;
        if (why == ELOOP) return failed("refusing the symbolic link on the way to", dir);
        auto error = failed("cannot open", dir);
        if (why == ENOENT || why == ENOTDIR) error.code = ErrorCode::not_found;
        return error;
      }
      current = std::move(next);
    }
    const int fd = current.get();
    opened_.emplace(dir, std::move(current));
    return fd;
  }

 private:
  struct Root {
    std::vector<std::string> parts;
    std::size_t index;
  };
  std::vector<Descriptor> roots_;
  std::vector<Root> names_;
  std::map<std::string, Descriptor> opened_;
};

bool absent(const domain::Error& error) {
  return error.code == ErrorCode::not_found;
}

// The file name of a path (after its last '/').
std::string nameOf(const std::string& path) {
  return path.substr(path.rfind('/') + 1);
}

class LocalFileSystem : public TargetFileSystem {
 public:
  LocalFileSystem(const FileModuleSettings& settings, std::chrono::milliseconds timeout)
      : tree_(settings.file_directories), allowed_(settings.exec_commands), timeout_(timeout) {}

  domain::Result<FileState> stat(const std::string& path) override {
    auto dir = tree_.directory(directoryOf(path));
    if (!dir) return absent(dir.error()) ? domain::Result<FileState>(FileState{}) : dir.error();
    struct stat st {};
    if (::fstatat(*dir, nameOf(path).c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
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
    auto dir = tree_.directory(directoryOf(path));
    if (!dir) return dir.error();
    // Non-blocking and only a regular file: a FIFO planted at the path cannot hold the run.
    const Descriptor fd(
        ::openat(*dir, nameOf(path).c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK));
    if (fd.get() < 0) return failed("cannot read", path);
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
      errno = EINVAL;
      return failed("not a regular file:", path);
    }
    std::string out;
    char buf[8192];
    for (;;) {
      const auto n = ::read(fd.get(), buf, sizeof buf);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
      if (out.size() > (1u << 20)) break;
    }
    return out;
  }

  domain::Status write(const std::string& path, const std::string& bytes, unsigned mode) override {
    auto dir = tree_.directory(directoryOf(path));
    if (!dir) return dir.error();
    const std::string name = nameOf(path);
    ::unlinkat(*dir, name.c_str(), 0);  // a leftover temporary, never followed
    const Descriptor fd(::openat(*dir, name.c_str(),
                                 O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                                 static_cast<mode_t>(mode & 0600)));
    if (fd.get() < 0) return failed("cannot create", path);
    const auto abandon = [&](const char* what) {
      const auto error = failed(what, path);
      ::unlinkat(*dir, name.c_str(), 0);
      return error;
    };
    std::size_t done = 0;
    while (done < bytes.size()) {
      const auto n = ::write(fd.get(), bytes.data() + done, bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return abandon("cannot write");
      done += static_cast<std::size_t>(n);
    }
    if (::fchmod(fd.get(), static_cast<mode_t>(mode)) != 0 || ::fsync(fd.get()) != 0) {
      return abandon("cannot finish");
    }
    return {};
  }

  domain::Status keepAside(const std::string& path, const std::string& aside,
                           std::optional<unsigned> mode) override {
    if (mode) {  // a copy with its own mode (a hard link would share the live file's)
      auto bytes = read(path);
      if (!bytes) return bytes.error();
      return write(aside, *bytes, *mode);
    }
    auto from = tree_.directory(directoryOf(path));
    if (!from) return from.error();
    auto to = tree_.directory(directoryOf(aside));
    if (!to) return to.error();
    if (::unlinkat(*to, nameOf(aside).c_str(), 0) != 0 && errno != ENOENT) {
      return failed("cannot replace", aside);
    }
    if (::linkat(*from, nameOf(path).c_str(), *to, nameOf(aside).c_str(), 0) != 0) {
      return failed("cannot keep", path);
    }
    return {};
  }

  domain::Status installAll(const Moves& moves) override {
    for (const auto& [from, path] : moves) {
      auto source = tree_.directory(directoryOf(from));
      if (!source) return source.error();
      auto target = tree_.directory(directoryOf(path));
      if (!target) return target.error();
      if (::renameat(*source, nameOf(from).c_str(), *target, nameOf(path).c_str()) != 0) {
        return failed("cannot move into place", path);
      }
    }
    return {};
  }

  domain::Status remove(const std::string& path) override {
    auto dir = tree_.directory(directoryOf(path));
    if (!dir) return absent(dir.error()) ? domain::Status{} : domain::Status{dir.error()};
    if (::unlinkat(*dir, nameOf(path).c_str(), 0) != 0 && errno != ENOENT) {
      return failed("cannot remove", path);
    }
    return {};
  }

  domain::Status makeDirectory(const std::string& dir, unsigned mode) override {
    auto parent = tree_.directory(directoryOf(dir));
    if (!parent) return parent.error();
    if (::mkdirat(*parent, nameOf(dir).c_str(), static_cast<mode_t>(mode)) == 0) {
      // Its mode as asked, whatever the umask (the packaged unit's is 0077: the web server
      // could not enter it).
      const Descriptor made(
          ::openat(*parent, nameOf(dir).c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
      if (made.get() < 0 || ::fchmod(made.get(), static_cast<mode_t>(mode)) != 0) {
        return failed("cannot set the mode of", dir);
      }
    } else if (errno != EEXIST) {
      return failed("cannot create the directory", dir);
    }
    // What is there now must be a directory reached without a link (the walk refuses one).
    auto made = tree_.directory(dir);
    return made ? domain::Status{} : domain::Status{made.error()};
  }

  domain::Result<bool> writableDirectory(const std::string& dir) override {
    auto fd = tree_.directory(dir);
    if (!fd) return absent(fd.error()) ? domain::Result<bool>(false) : fd.error();
    return ::faccessat(*fd, ".", W_OK | X_OK, 0) == 0;
  }

  // WRITE_FAILED naming the first file of the target whose directory is not below an allowed
  // directory (lexically: links on the way are refused when walked), or nullopt. The directories
  // it opens are the ones the run then uses.
  std::optional<ports::TargetOutcome> outside(const domain::Settings& settings) {
    for (const auto& f : filesFor(settings, {})) {
      auto dir = tree_.directory(directoryOf(f.path));
      if (!dir && dir.error().code == ErrorCode::failed_precondition) {
        return ports::TargetOutcome::failure(domain::target_error::write_failed,
                                             outsideAllowed(f.path).message);
      }
    }
    return std::nullopt;
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
  ConfinedTree tree_;
  const std::vector<std::string>& allowed_;
  std::chrono::milliseconds timeout_;
};

}  // namespace

ports::TargetOutcome FileModule::plan(const ports::TargetAccess& target,
                                      const domain::CertificateVersion& next) {
  LocalFileSystem fs(settings_, millis(target.timeout));
  if (auto refused = fs.outside(target.settings)) return *refused;
  return planFiles(fs, target, next);
}

ports::TargetOutcome FileModule::deliver(const ports::TargetAccess& target,
                                         const domain::CertificateVersion& next) {
  LocalFileSystem fs(settings_, millis(target.timeout));
  if (auto refused = fs.outside(target.settings)) return *refused;
  return deliverFiles(fs, target, next, [&](const domain::Settings& s, const std::string& leaf) {
    return checkServedCertificate(s, leaf, std::min(millis(target.timeout), verifyPatience()));
  });
}

ports::TargetOutcome FileModule::restore(const ports::TargetAccess& target,
                                         const domain::CertificateVersion*) {
  LocalFileSystem fs(settings_, millis(target.timeout));
  if (auto refused = fs.outside(target.settings)) return *refused;
  return restoreFiles(fs, target);
}

ports::TargetOutcome FileModule::putChallengeFile(const ports::TargetAccess& target,
                                                  const std::string& token,
                                                  const std::string& content) {
  LocalFileSystem fs(settings_, millis(target.timeout));
  return distribution::putChallengeFile(fs, target, token, content);
}

ports::TargetOutcome FileModule::removeChallengeFile(const ports::TargetAccess& target,
                                                     const std::string& token) {
  LocalFileSystem fs(settings_, millis(target.timeout));
  return distribution::removeChallengeFile(fs, target, token);
}

ports::TargetOutcome FileModule::check(const ports::TargetAccess& target) {
  LocalFileSystem fs(settings_, millis(target.timeout));
  if (auto refused = fs.outside(target.settings)) return *refused;
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
