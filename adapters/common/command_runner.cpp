// Running an operator-allowed executable.
#include <certsteward/adapters/common/command_runner.hpp>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <thread>

namespace certsteward::adapters::common {

using domain::ErrorCode;
using domain::makeError;
using Clock = std::chrono::steady_clock;

// The last non-empty line of `output`, the secret masked, at most 300 characters.
std::string lastOutputLine(std::string output, const std::string& secret) {
  if (!secret.empty()) {
    for (auto at = output.find(secret); at != std::string::npos; at = output.find(secret, at)) {
      output.replace(at, secret.size(), "***");
    }
  }
  while (!output.empty() && (output.back() == '\n' || output.back() == '\r'))
    output.pop_back();
  const auto nl = output.find_last_of('\n');
  std::string line = nl == std::string::npos ? output : output.substr(nl + 1);
  for (char& c : line) {
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  }
  return line.size() > 300 ? line.substr(0, 300) + "..." : line;
}

domain::Status runCommand(const Command& command) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0) {
    return makeError(ErrorCode::unavailable, command.what + " cannot be started (no pipe)");
  }
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&files, out[1], 1);
  posix_spawn_file_actions_adddup2(&files, out[1], 2);
  posix_spawn_file_actions_addclosefrom_np(&files, 3);  // nothing of the server leaks in
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(&attr, 0);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  posix_spawnattr_setsigmask(&attr, &none);  // the server blocks SIGTERM; the command must not
  posix_spawnattr_setsigdefault(&attr, &all);

  std::vector<std::string> args{command.path};
  args.insert(args.end(), command.args.begin(), command.args.end());
  std::vector<std::string> env = command.env;
  bool hasPath = false;
  for (const auto& e : env)
    hasPath = hasPath || e.starts_with("PATH=");
  if (!hasPath) env.push_back("PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
  std::vector<char*> argv, envp;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  for (auto& e : env)
    envp.push_back(e.data());
  envp.push_back(nullptr);

  pid_t pid = -1;
  const int spawned =
      ::posix_spawn(&pid, command.path.c_str(), &files, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  ::close(out[1]);
  const std::string& what = command.what;
  if (spawned != 0) {
    ::close(out[0]);
    return makeError(ErrorCode::failed_precondition,
                     what + " cannot be run: " + std::string(std::strerror(spawned)));
  }

  // Read its output until it closes the pipe or the time is up.
  std::string output;
  const auto deadline = Clock::now() + command.timeout;
  bool timedOut = false;
  char buf[1024];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now());
    if (left.count() <= 0) {
      timedOut = true;
      break;
    }
    pollfd p{out[0], POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
    if (ready < 0 && errno != EINTR) break;
    if (ready <= 0) continue;
    const auto n = ::read(out[0], buf, sizeof buf);
    if (n <= 0) break;
    if (output.size() < 16384) output.append(buf, static_cast<std::size_t>(n));
  }
  ::close(out[0]);
  int status = 0;
  if (timedOut) {
    ::kill(-pid, SIGKILL);  // the command and whatever it started
    ::waitpid(pid, &status, 0);
    const auto ms = command.timeout.count();
    return makeError(
        ErrorCode::unavailable,
        what + " did not finish within " +
            (ms % 1000 == 0 ? std::to_string(ms / 1000) + " s" : std::to_string(ms) + " ms") +
            " and was stopped",
        "TIMEOUT");
  }
  // The output is closed; the command exits now (bounded: killed after the deadline).
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (Clock::now() > deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return makeError(ErrorCode::unavailable, what + " did not exit in time", "TIMEOUT");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{5});
  }
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) return {};
  const std::string how = WIFEXITED(status)
                              ? "exited with status " + std::to_string(WEXITSTATUS(status))
                              : "was killed by signal " + std::to_string(WTERMSIG(status));
  const std::string line = lastOutputLine(output, command.secret);
  return makeError(ErrorCode::unavailable, what + " " + how + (line.empty() ? "" : ": " + line));
}

}  // namespace certsteward::adapters::common
