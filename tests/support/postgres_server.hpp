// PostgresServer: a real PostgreSQL (Debian's, /usr/lib/postgresql/<version>/bin) started for a
// test from a data directory of its own: initdb (SCRAM passwords for TCP, the superuser
// `certsteward`), then the postmaster on a free 127.0.0.1 port with its socket in that directory.
// As root it runs as the `postgres` user (PostgreSQL refuses root). Stopped with a fast shutdown
// (SIGINT) and the directory removed afterwards. fsync is off (these servers hold test data only)
// unless a benchmark asks for a durable one.
#pragma once

#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class PostgresServer : public LocalServer {
 public:
  static constexpr const char* kUser = "certsteward";
  static constexpr const char* kPassword = "pg-test-password";

  // `durable`: fsync and full-page writes on, as in production (benchmarks); tests run without.
  explicit PostgresServer(bool durable = false) : durable_(durable) {
    bin_ = binDirectory();
    if (bin_.empty()) {
      reason_ = "PostgreSQL is not installed (scripts/setup installs postgresql)";
      return;
    }
    dir_ = freshServerDir("postgres");
    if (::geteuid() == 0) {
      const passwd* pw = ::getpwnam("postgres");
      if (pw == nullptr) {
        reason_ = "running as root, and there is no `postgres` user to run PostgreSQL as";
        return;
      }
      uid_ = pw->pw_uid;
      gid_ = pw->pw_gid;
      if (::chown(dir_.c_str(), uid_, gid_) != 0) {
        reason_ = "cannot hand " + dir_.string() + " to the postgres user";
        return;
      }
    }
    std::ofstream(dir_ / "pwfile") << kPassword << "\n";
    if (::chown((dir_ / "pwfile").c_str(), uid_, gid_) != 0) {
      reason_ = "cannot hand the password file to the postgres user";
      return;
    }
    const int initdb =
        runAs({(bin_ / "initdb").string(), "-D", data().string(), "-U", kUser, "--pwfile",
               (dir_ / "pwfile").string(), "--auth-local=trust", "--auth-host=scram-sha-256", "-E",
               "UTF8", "--locale=C.UTF-8", "--no-sync"},
              dir_ / "initdb.log");
    if (initdb != 0) {
      reason_ = "initdb failed: " + readLog(dir_ / "initdb.log").substr(0, 2000);
      return;
    }
    port_ = freeLoopbackPort();
    start();
  }

  // A hot standby of `primary`, streaming from it: a base backup taken with pg_basebackup -R
  // (which writes standby.signal and primary_conninfo), started on a port of its own.
  struct StandbyOf {
    const PostgresServer& primary;
  };
  explicit PostgresServer(StandbyOf of) {
    const PostgresServer& primary = of.primary;
    if (!primary.available()) {
      reason_ = "the primary is not running: " + primary.reason();
      return;
    }
    bin_ = primary.bin_;
    durable_ = primary.durable_;
    uid_ = primary.uid_;
    gid_ = primary.gid_;
    dir_ = freshServerDir("postgres-standby");
    if (::chown(dir_.c_str(), uid_, gid_) != 0) {
      reason_ = "cannot hand " + dir_.string() + " to the postgres user";
      return;
    }
    const int copied = runAs(
        {(bin_ / "pg_basebackup").string(), "-h", "127.0.0.1", "-p", std::to_string(primary.port_),
         "-U", kUser, "-D", data().string(), "-R", "-X", "stream", "--no-sync", "-c", "fast"},
        dir_ / "basebackup.log", kPassword);
    if (copied != 0) {
      reason_ = "pg_basebackup failed: " + readLog(dir_ / "basebackup.log").substr(0, 2000);
      return;
    }
    port_ = freeLoopbackPort();
    start();
  }

  ~PostgresServer() { stop(); }

  // A standby becomes a primary (pg_ctl promote, waiting until it accepts writes).
  bool promote() {
    const int promoted =
        runAs({(bin_ / "pg_ctl").string(), "promote", "-D", data().string(), "-w", "-t", "30"},
              dir_ / "promote.log");
    return promoted == 0;
  }

  // postgresql://certsteward:<password>@127.0.0.1:<port>/<database>
  std::string url(const std::string& database = "postgres") const {
    return std::string("postgresql://") + kUser + ":" + kPassword +
           "@127.0.0.1:" + std::to_string(port_) + "/" + database;
  }
  // A libpq keyword/value string for the same server.
  std::string conninfo(const std::string& database = "postgres") const {
    return "host=127.0.0.1 port=" + std::to_string(port_) + " user=" + kUser +
           " password=" + kPassword + " dbname=" + database + " connect_timeout=5";
  }

  // A fast shutdown (SIGINT: sessions are ended, then a clean stop); SIGKILL after 10 s.
  void stop() {
    if (pid_ <= 0) return;
    ::kill(pid_, SIGINT);
    for (int i = 0; i < 200; ++i) {
      if (::waitpid(pid_, nullptr, WNOHANG) == pid_) {
        pid_ = -1;
        return;
      }
      ::usleep(50'000);
    }
    kill9();
  }
  // Stops it at once, as a crash of its host would: SIGKILL to the postmaster and to each of its
  // processes (they are not in its process group: each calls setsid), then waits until none is
  // left holding the shared memory, so that a restart can take it. Recovery replays the WAL.
  void kill9() {
    if (pid_ <= 0) return;
    const auto children = childrenOf(pid_);
    ::kill(pid_, SIGKILL);
    for (const pid_t child : children)
      ::kill(child, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
    pid_ = -1;
    for (const pid_t child : children) {
      for (int i = 0; i < 250 && running(child); ++i)
        ::usleep(20'000);
    }
  }
  // Starts it again accepting TLS with `certificatePem` (and its chain) and `keyPem`.
  bool restartWithTls(const std::string& certificatePem, const std::string& keyPem) {
    const auto cert = dir_ / "server.crt";
    const auto key = dir_ / "server.key";
    std::ofstream(cert) << certificatePem;
    std::ofstream(key) << keyPem;
    // PostgreSQL refuses a key others may read, and reads both as its own user.
    if (::chmod(key.c_str(), 0600) != 0 || ::chown(cert.c_str(), uid_, gid_) != 0 ||
        ::chown(key.c_str(), uid_, gid_) != 0) {
      reason_ = "cannot hand the TLS files to the postgres user";
      return false;
    }
    tls_ = true;
    return restart();
  }

  // Starts it again on the same port with the same data.
  bool restart() {
    stop();
    start();
    return available();
  }

  std::string log() const { return readLog(dir_ / "postgres.log"); }
  std::filesystem::path data() const { return dir_ / "data"; }

 private:
  // The newest Debian PostgreSQL's bin directory, or empty.
  static std::filesystem::path binDirectory() {
    std::vector<std::filesystem::path> found;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
      if (std::filesystem::exists(e.path() / "bin" / "postgres")) found.push_back(e.path() / "bin");
    }
    std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
      return std::stoi(a.parent_path().filename().string()) <
             std::stoi(b.parent_path().filename().string());
    });
    return found.empty() ? std::filesystem::path() : found.back();
  }

  static std::vector<pid_t> childrenOf(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children");
    std::vector<pid_t> out;
    for (pid_t child = 0; in >> child;)
      out.push_back(child);
    return out;
  }
  // Whether `pid` still runs (a zombie no longer holds anything).
  static bool running(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), {});
    const auto close = text.rfind(')');
    if (close == std::string::npos || close + 2 >= text.size()) return false;
    const char state = text[close + 2];
    return state != 'Z' && state != 'X';
  }

  // Runs argv as the server's user to its end; its exit status.
  int runAs(const std::vector<std::string>& argv, const std::filesystem::path& log,
            const std::string& password = {}) const {
    const pid_t pid = spawnAs(argv, log, password);
    int status = 0;
    if (pid <= 0 || ::waitpid(pid, &status, 0) != pid) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  // Starts argv as the server's user (PostgreSQL refuses root), in a session of its own (a ^C
  // at the terminal goes to the test, which stops the server itself).
  // `password`: PGPASSWORD for a client program (pg_basebackup).
  pid_t spawnAs(const std::vector<std::string>& argv, const std::filesystem::path& log,
                const std::string& password = {}) const {
    return spawnLogged(argv, log, [this, &password] {
      if (::geteuid() == 0 &&
          (::setgroups(0, nullptr) != 0 || ::setgid(gid_) != 0 || ::setuid(uid_) != 0)) {
        ::_exit(126);
      }
      if (!password.empty()) ::setenv("PGPASSWORD", password.c_str(), 1);
      ::setsid();
    });
  }

  void start() {
    const auto logFile = dir_ / "postgres.log";
    const std::size_t seen = readLog(logFile).size();  // what an earlier start wrote
    {
      std::ofstream(logFile, std::ios::app);  // owned by the test's user, written by the server
      if (::chown(logFile.c_str(), uid_, gid_) != 0) {
        reason_ = "cannot hand " + logFile.string() + " to the postgres user";
        return;
      }
    }
    std::vector<std::string> argv{(bin_ / "postgres").string(),
                                  "-D",
                                  data().string(),
                                  "-p",
                                  std::to_string(port_),
                                  "-c",
                                  "listen_addresses=127.0.0.1",
                                  "-c",
                                  "unix_socket_directories=" + dir_.string(),
                                  "-c",
                                  "max_connections=200",
                                  "-c",
                                  durable_ ? "shared_buffers=512MB" : "shared_buffers=64MB"};
    if (tls_) {
      for (const std::string& setting :
           {std::string("ssl=on"), "ssl_cert_file=" + (dir_ / "server.crt").string(),
            "ssl_key_file=" + (dir_ / "server.key").string()}) {
        argv.push_back("-c");
        argv.push_back(setting);
      }
    }
    if (!durable_) {
      for (const char* setting : {"fsync=off", "full_page_writes=off"}) {
        argv.push_back("-c");
        argv.push_back(setting);
      }
    }
    pid_ = spawnAs(argv, logFile);
    reason_ = waitUntilReady(
        pid_, logFile, "postgres",
        [seen](const std::string& text) {
          // A standby accepts read-only connections.
          return text.find("database system is ready to accept connections", seen) !=
                     std::string::npos ||
                 text.find("database system is ready to accept read-only connections", seen) !=
                     std::string::npos;
        },
        std::chrono::seconds{30});
  }

  std::filesystem::path bin_;
  bool durable_ = false;
  bool tls_ = false;
  uid_t uid_ = ::geteuid();
  gid_t gid_ = ::getegid();
};

// One server for every test of a process, started on first use and stopped at its exit.
inline PostgresServer& sharedPostgres() {
  static PostgresServer server;
  return server;
}

}  // namespace certsteward::testing
