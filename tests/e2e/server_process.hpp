// ServerProcess: the packaged certsteward binary started for end-to-end tests on 127.0.0.1 with
// a fresh SQLite file in a temporary directory, stopped with SIGTERM (kill -9 after 10 s).
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include <sys/types.h>

namespace certsteward::testing {

// The servers' `secrets.key`: tests that plant sealed values use it too.
inline constexpr const char* kE2eSecretsKey = "e2e-secrets-key-with-at-least-32-characters";

class ServerProcess {
 public:
  // `extraConfig`: more `key = value` lines. `env`: extra environment variables.
  explicit ServerProcess(const std::map<std::string, std::string>& env = {},
                         const std::string& extraConfig = {});
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  std::string baseUrl() const { return "http://127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  // Sends SIGTERM and waits (bounded); returns the exit status.
  int stop();
  // A crash: SIGKILL, no shutdown.
  void kill9();
  bool running() const;
  pid_t pid() const { return pid_; }
  std::string log() const;
  std::filesystem::path databasePath() const { return dir_ / "db.sqlite"; }
  // Its configuration file (for the command-line tools run beside it).
  std::filesystem::path configPath() const { return dir_ / "conf"; }

 private:
  std::filesystem::path dir_;
  pid_t pid_ = -1;
  int port_ = 0;
};

}  // namespace certsteward::testing
