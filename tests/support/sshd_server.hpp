// SshdServer: a real OpenSSH sshd started by a test on 127.0.0.1 at a free port, with its own
// host key and one authorized client key (both ed25519, made with ssh-keygen), SFTP through
// internal-sftp, in its own temporary directory; stopped and removed by the destructor. The
// login user is the one running the test. `sftpOnly`: every login gets SFTP and nothing else
// (ForceCommand internal-sftp), as on hosts that run no commands for the deploy account.
// available() is false, with a reason, when sshd is not installed.
#pragma once

#include <pwd.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class SshdServer : public LocalServer {
 public:
  explicit SshdServer(bool sftpOnly = false) {
    if (!std::filesystem::exists("/usr/sbin/sshd") ||
        !std::filesystem::exists("/usr/bin/ssh-keygen")) {
      reason_ = "sshd is not installed (scripts/setup installs openssh-server)";
      return;
    }
    if (::getuid() == 0) std::filesystem::create_directories("/run/sshd");
    dir_ = freshServerDir("sshd");
    port_ = freeLoopbackPort();
    const auto d = dir_.string();
    if (runShell("/usr/bin/ssh-keygen -q -t ed25519 -N '' -f " + d + "/host_key") != 0 ||
        runShell("/usr/bin/ssh-keygen -q -t ed25519 -N '' -C certsteward-test -f " + d +
                 "/client_key") != 0 ||
        runShell("/usr/bin/ssh-keygen -q -t ed25519 -N '' -f " + d + "/other_key") != 0 ||
        runShell("/usr/bin/ssh-keygen -lf " + d + "/host_key.pub > " + d + "/fingerprint") != 0) {
      reason_ = "ssh-keygen failed";
      return;
    }
    std::filesystem::copy_file(dir_ / "client_key.pub", dir_ / "authorized_keys");
    const std::string printed =
        readLog(dir_ / "fingerprint");  // "256 SHA256:... comment (ED25519)"
    const auto at = printed.find("SHA256:");
    fingerprint_ = printed.substr(at, printed.find(' ', at) - at);
    std::ofstream(dir_ / "sshd_config")
        << "Port " << port_ << "\nListenAddress 127.0.0.1\nHostKey " << d << "/host_key\n"
        << "PidFile " << d << "/sshd.pid\nAuthorizedKeysFile " << d << "/authorized_keys\n"
        << "UsePAM no\nStrictModes no\nPermitRootLogin yes\nPasswordAuthentication yes\n"
        << "KbdInteractiveAuthentication no\nMaxStartups 200:30:400\nMaxSessions 50\n"
        << "LogLevel ERROR\nSubsystem sftp internal-sftp\n"
        << (sftpOnly ? "ForceCommand internal-sftp\n" : "");
    pid_ = spawnLogged({"/usr/sbin/sshd", "-D", "-e", "-f", d + "/sshd_config"}, dir_ / "sshd.log");
    // Ready when the port accepts a connection.
    const std::string probe =
        "/usr/bin/ssh-keyscan -T 1 -p " + std::to_string(port_) + " 127.0.0.1 > /dev/null 2>&1";
    reason_ = waitUntilReady(
        pid_, dir_ / "sshd.log", "sshd", [&](const std::string&) { return runShell(probe) == 0; },
        std::chrono::seconds{10});
  }

  int port() const { return port_; }
  // As `ssh-keygen -lf` prints it.
  const std::string& hostKeyFingerprint() const { return fingerprint_; }
  std::string clientKey() const { return readLog(dir_ / "client_key"); }
  std::string unauthorizedKey() const { return readLog(dir_ / "other_key"); }
  std::string clientKeyPath() const { return (dir_ / "client_key").string(); }
  static std::string user() {
    const passwd* pw = ::getpwuid(::getuid());
    return pw != nullptr ? pw->pw_name : "root";
  }

 private:
  std::string fingerprint_;
};

}  // namespace certsteward::testing
