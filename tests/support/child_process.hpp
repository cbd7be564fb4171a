// Servers a test starts: waiting until one is ready, and stopping it (SIGTERM, up to 5 s for it
// to exit, then SIGKILL).
#pragma once

#include <signal.h>
#include <sys/wait.h>

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <thread>
#include <vector>

namespace certsteward::testing {

inline void stopChild(pid_t pid) {
  if (pid <= 0) return;
  ::kill(pid, SIGTERM);
  for (int i = 0; i < 100; ++i) {
    if (::waitpid(pid, nullptr, WNOHANG) == pid) return;
    std::this_thread::sleep_for(std::chrono::milliseconds{50});
  }
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
}

// A new, empty directory under the system temp directory for one started server:
// certsteward-<name>-<pid>-<n>.
inline std::filesystem::path freshServerDir(const std::string& name) {
  static std::atomic<int> counter{0};
  auto dir =
      std::filesystem::temp_directory_path() /
      ("certsteward-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string readLog(const std::filesystem::path& file) {
  std::ifstream in(file);
  return std::string((std::istreambuf_iterator<char>(in)), {});
}

// Waits (bounded by `limit`) until `ready(log text)` holds. Returns "" when ready, else why not:
// the child exited (then `pid` becomes -1) or the time ran out.
template <class Ready>
std::string waitUntilReady(pid_t& pid, const std::filesystem::path& log, const std::string& name,
                           Ready ready,
                           std::chrono::milliseconds limit = std::chrono::seconds{15}) {
  for (auto waited = std::chrono::milliseconds{0}; waited < limit;
       waited += std::chrono::milliseconds{100}) {
    const std::string text = readLog(log);
    if (ready(text)) return {};
    if (::waitpid(pid, nullptr, WNOHANG) == pid) {
      pid = -1;
      return name + " exited at start: " + text.substr(0, 2000);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
  return name + " was not ready within " + std::to_string(limit.count()) + " ms";
}

// Starts `argv` (argv[0] an absolute path) with stdout and stderr appended to `log`; its pid.
// `inChild`, when given, runs in the child just before the program (dropping privileges, a
// session of its own); it calls _exit itself on failure.
inline pid_t spawnLogged(const std::vector<std::string>& argv, const std::filesystem::path& log,
                         const std::function<void()>& inChild = {}) {
  std::fflush(nullptr);  // or the child writes the parent's pending output again
  const pid_t pid = ::fork();
  if (pid == 0) {
    FILE* out = std::freopen(log.c_str(), "a", stdout);
    FILE* err = std::freopen(log.c_str(), "a", stderr);
    (void)out;
    (void)err;
    if (inChild) inChild();
    std::vector<char*> args;
    for (const auto& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

// Runs a shell command line to its end (test set-up: ssh-keygen, openssl); its exit status.
inline int runShell(const std::string& command) {
  std::fflush(nullptr);
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The destructor of a started server: stop it, remove its directory.
inline void stopAndRemove(pid_t pid, const std::filesystem::path& dir) {
  stopChild(pid);
  if (!dir.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
}

// What every server a test starts has in common: a directory of its own, its process, its
// port, and why it is not available (empty when it is). The destructor stops the process and
// removes the directory.
class LocalServer {
 public:
  LocalServer(const LocalServer&) = delete;
  LocalServer& operator=(const LocalServer&) = delete;

  bool available() const { return reason_.empty(); }
  const std::string& reason() const { return reason_; }
  int port() const { return port_; }

 protected:
  LocalServer() = default;
  ~LocalServer() { stopAndRemove(pid_, dir_); }

  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
  std::string reason_;
};

}  // namespace certsteward::testing
