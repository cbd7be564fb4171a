// fork/exec of the packaged binary.
#include "e2e/server_process.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

#ifndef CERTSTEWARD_BINARY
#error "CERTSTEWARD_BINARY must name the packaged binary"
#endif

namespace certsteward::testing {

ServerProcess::ServerProcess(const std::map<std::string, std::string>& env,
                             const std::string& extraConfig) {
  static int counter = 0;
  dir_ = std::filesystem::temp_directory_path() /
         ("certsteward-e2e-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
  std::filesystem::create_directories(dir_);
  {
    std::ofstream conf(dir_ / "conf");
    conf << "server.listen = 127.0.0.1:0\n"
         // A store given in extraConfig (instances sharing one file) replaces the private one.
         << (extraConfig.find("store.url") == std::string::npos
                 ? "store.url = sqlite://" + (dir_ / "db.sqlite").string() + "\n"
                 : std::string())
         << "jwt.secret = e2e-jwt-secret-with-at-least-32-characters!\n"
         << "secrets.key = " << kE2eSecretsKey << "\n"
         << "auth.bcrypt_cost = 10\n"
         // API suites drive jobs themselves (cancel, retry): no workers unless a suite asks.
         << (extraConfig.find("worker.enabled") == std::string::npos ? "worker.enabled = false\n"
                                                                     : "")
         // The receivers the suites start listen on loopback, which an operator opens like this
         // (refused by default: a suite that checks the default sets the key itself).
         // The suites play a proxy in front of the server: X-Forwarded-For from loopback counts
         // (no proxy is trusted by default: a suite that checks the default sets the key).
         << (extraConfig.find("server.trusted_proxies") == std::string::npos
                 ? "server.trusted_proxies = 127.0.0.1\n"
                 : "")
         << (extraConfig.find("network.outbound_allow") == std::string::npos
                 ? "network.outbound_allow = 127.0.0.0/8, ::1\n"
                 : "")
         << extraConfig;
  }
  const std::string logPath = (dir_ / "log").string();
  std::fflush(stdout);  // the child must not repeat what the parent had buffered
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    for (const auto& [k, v] : env)
      ::setenv(k.c_str(), v.c_str(), 1);
    FILE* log = std::freopen(logPath.c_str(), "w", stdout);
    (void)log;
    ::dup2(::fileno(stdout), STDERR_FILENO);
    const std::string conf = (dir_ / "conf").string();
    // CERTSTEWARD_TEST_BINARY runs the suites against another build (an older release, to see
    // which tests fail without a fix).
    const char* override = std::getenv("CERTSTEWARD_TEST_BINARY");
    const char* binary = override != nullptr && *override != '\0' ? override : CERTSTEWARD_BINARY;
    ::execl(binary, binary, "serve", "--config", conf.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  constexpr std::string_view kListening = "listening on 127.0.0.1:";
  for (int i = 0; i < 300 && port_ == 0; ++i) {  // bounded: 30 s (sanitizer builds start slowly)
    const std::string text = log();
    if (const auto at = text.find(kListening); at != std::string::npos) {
      port_ = std::atoi(text.c_str() + at + kListening.size());
    }
    if (port_ == 0) {
      if (!running()) throw std::runtime_error("certsteward exited early:\n" + text);
      std::this_thread::sleep_for(std::chrono::milliseconds{100});
    }
  }
  if (port_ == 0) throw std::runtime_error("certsteward did not report its port");
}

ServerProcess::~ServerProcess() {
  stop();
  std::error_code ignored;
  std::filesystem::remove_all(dir_, ignored);
}

bool ServerProcess::running() const {
  if (pid_ <= 0) return false;
  return ::kill(pid_, 0) == 0 && ::waitpid(pid_, nullptr, WNOHANG) == 0;
}

int ServerProcess::stop() {
  if (pid_ <= 0) return -1;
  ::kill(pid_, SIGTERM);
  int status = 0;
  for (int i = 0; i < 100; ++i) {
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{100});
  }
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return 137;
}

void ServerProcess::kill9() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  ::waitpid(pid_, nullptr, 0);
  pid_ = -1;
}

std::string ServerProcess::log() const {
  std::ifstream in(dir_ / "log");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace certsteward::testing
