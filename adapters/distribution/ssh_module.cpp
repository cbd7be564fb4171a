// Certificate files over SFTP.
#include <certsteward/adapters/distribution/ssh_module.hpp>

#include <fcntl.h>
#include <libssh/libssh.h>
#include <libssh/sftp.h>

#include <algorithm>
#include <memory>

#include <certsteward/adapters/common/command_runner.hpp>
#include <certsteward/adapters/distribution/net.hpp>
#include <certsteward/adapters/distribution/target_files.hpp>
#include <certsteward/domain/encoding.hpp>

namespace certsteward::adapters::distribution {

using domain::ErrorCode;
using domain::makeError;
using ports::TargetOutcome;

namespace {

// Single quotes for a POSIX shell.
std::string shellQuote(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// An authenticated session with SFTP open, or the outcome that says why there is none.
class SshTarget : public TargetFileSystem {
 public:
  ~SshTarget() override {
    if (sftp_ != nullptr) sftp_free(sftp_);
    if (session_ != nullptr) {
      if (ssh_is_connected(session_) != 0) ssh_disconnect(session_);
      ssh_free(session_);
    }
  }

  std::optional<TargetOutcome> open(const ports::TargetAccess& target) {
    const std::string host = domain::settingOf(target.settings, "host");
    const std::string where = host + ":" + domain::settingOf(target.settings, "port", "22");
    session_ = ssh_new();
    if (session_ == nullptr) return TargetOutcome::failure("CONNECT_FAILED", "no SSH session");
    timeoutMs_ = millis(target.timeout).count();
    const unsigned port =
        static_cast<unsigned>(std::stoul(domain::settingOf(target.settings, "port", "22")));
    const long seconds = std::max<long>(1, static_cast<long>(timeoutMs_ / 1000));
    const bool no = false;
    const std::string user = target.credential ? target.credential->username : std::string();
    ssh_options_set(session_, SSH_OPTIONS_HOST, host.c_str());
    ssh_options_set(session_, SSH_OPTIONS_PORT, &port);
    ssh_options_set(session_, SSH_OPTIONS_TIMEOUT, &seconds);
    ssh_options_set(session_, SSH_OPTIONS_PROCESS_CONFIG, &no);  // nothing from ~/.ssh/config
    ssh_options_set(session_, SSH_OPTIONS_KNOWNHOSTS, "/dev/null");
    ssh_options_set(session_, SSH_OPTIONS_GLOBAL_KNOWNHOSTS, "/dev/null");
    if (!user.empty()) ssh_options_set(session_, SSH_OPTIONS_USER, user.c_str());
    if (ssh_connect(session_) != SSH_OK) {
      const std::string why = ssh_get_error(session_);
      const bool timedOut =
          why.find("imeout") != std::string::npos || why.find("timed out") != std::string::npos;
      return TargetOutcome::failure(timedOut ? "TIMEOUT" : "CONNECT_FAILED",
                                    "cannot connect to " + where + ": " + why);
    }
    // The host key before anything of ours is sent.
    ssh_key key = nullptr;
    if (ssh_get_server_publickey(session_, &key) != SSH_OK) {
      return TargetOutcome::failure("HOST_KEY_MISMATCH", where + " presented no host key");
    }
    unsigned char* hash = nullptr;
    size_t hashLen = 0;
    const int hashed = ssh_get_publickey_hash(key, SSH_PUBLICKEY_HASH_SHA256, &hash, &hashLen);
    ssh_key_free(key);
    if (hashed != 0) return TargetOutcome::failure("HOST_KEY_MISMATCH", "cannot hash the host key");
    std::string fingerprint =
        "SHA256:" + domain::base64Encode(std::string(reinterpret_cast<char*>(hash), hashLen));
    ssh_clean_pubkey_hash(&hash);
    while (!fingerprint.empty() && fingerprint.back() == '=')
      fingerprint.pop_back();
    std::string expected = domain::settingOf(target.settings, "host_key_sha256");
    while (!expected.empty() && expected.back() == '=')
      expected.pop_back();
    if (fingerprint != expected) {
      return TargetOutcome::failure("HOST_KEY_MISMATCH", where + " presented host key " +
                                                             fingerprint + ", not the expected " +
                                                             expected + ": nothing was sent");
    }
    if (target.step) target.step("connected to " + where + ", host key " + fingerprint);
    if (!target.credential) {
      return TargetOutcome::failure("CREDENTIAL_MISSING", "the target names no credential");
    }
    int auth = SSH_AUTH_DENIED;
    if (target.credential->kind == "ssh_key") {
      ssh_key privateKey = nullptr;
      if (ssh_pki_import_privkey_base64(target.secret.c_str(), nullptr, nullptr, nullptr,
                                        &privateKey) != SSH_OK) {
        return TargetOutcome::failure("AUTH_FAILED", "the credential's private key cannot be read");
      }
      auth = ssh_userauth_publickey(session_, nullptr, privateKey);
      ssh_key_free(privateKey);
    } else {
      auth = ssh_userauth_password(session_, nullptr, target.secret.c_str());
    }
    if (auth != SSH_AUTH_SUCCESS) {
      return TargetOutcome::failure("AUTH_FAILED", where + " refused the credential of user " +
                                                       (user.empty() ? "(none)" : user));
    }
    sftp_ = sftp_new(session_);
    if (sftp_ == nullptr || sftp_init(sftp_) != SSH_OK) {
      return TargetOutcome::failure("CONNECT_FAILED",
                                    where + " offers no SFTP: " + ssh_get_error(session_));
    }
    if (target.step) target.step("authenticated as " + user);
    return std::nullopt;
  }

  domain::Result<FileState> stat(const std::string& path) override {
    sftp_attributes a = sftp_lstat(sftp_, path.c_str());
    if (a == nullptr) {
      if (sftp_get_error(sftp_) == SSH_FX_NO_SUCH_FILE) return FileState{};
      return failure("cannot inspect", path);
    }
    FileState st{true, a->type == SSH_FILEXFER_TYPE_DIRECTORY, a->permissions & 07777};
    const bool link = a->type == SSH_FILEXFER_TYPE_SYMLINK;
    sftp_attributes_free(a);
    if (link)
      return makeError(ErrorCode::unavailable, "refusing the symbolic link " + path,
                       "WRITE_FAILED");
    return st;
  }

  domain::Result<std::string> read(const std::string& path) override {
    sftp_file f = sftp_open(sftp_, path.c_str(), O_RDONLY, 0);
    if (f == nullptr) return failure("cannot read", path);
    std::string out;
    char buf[16384];
    for (;;) {
      const auto n = sftp_read(f, buf, sizeof buf);
      if (n < 0) {
        sftp_close(f);
        return failure("cannot read", path);
      }
      if (n == 0) break;
      out.append(buf, static_cast<std::size_t>(n));
      if (out.size() > (1u << 20)) break;
    }
    sftp_close(f);
    return out;
  }

  domain::Status write(const std::string& path, const std::string& bytes, unsigned mode) override {
    sftp_unlink(sftp_, path.c_str());  // a leftover temporary
    sftp_file f = sftp_open(sftp_, path.c_str(), O_WRONLY | O_CREAT | O_EXCL,
                            static_cast<mode_t>(mode & 0600));
    if (f == nullptr) return failure("cannot create", path);
    std::size_t done = 0;
    while (done < bytes.size()) {
      const auto n =
          sftp_write(f, bytes.data() + done, std::min<std::size_t>(bytes.size() - done, 32768));
      if (n <= 0) {
        sftp_close(f);
        sftp_unlink(sftp_, path.c_str());
        return failure("cannot write", path);
      }
      done += static_cast<std::size_t>(n);
    }
    if (sftp_close(f) != SSH_NO_ERROR ||
        sftp_chmod(sftp_, path.c_str(), static_cast<mode_t>(mode)) != 0) {
      sftp_unlink(sftp_, path.c_str());
      return failure("cannot finish", path);
    }
    return {};
  }

  // A copy (bytes, and mode unless given): the live file never goes missing.
  domain::Status keepAside(const std::string& path, const std::string& aside,
                           std::optional<unsigned> mode) override {
    auto state = stat(path);
    if (!state) return state.error();
    auto bytes = read(path);
    if (!bytes) return bytes.error();
    return write(aside, *bytes, mode.value_or(state->mode));
  }

  // rename(2) through the host's `mv -f`, every file in one command (atomic: each path always
  // names a whole file); where the host runs no commands, SFTP v3's rename, which only renames
  // onto a free name: then each path is briefly absent.
  domain::Status installAll(const Moves& moves) override { return installAllThenRun(moves, {}); }

  // The moves and the reload command in one command on the host: `{ mv ... && mv ...; } ||
  // { marker; exit 97; }; <reload>`.
  domain::Status installAllThenRun(const Moves& moves, const std::string& reload) override {
    static constexpr const char* kMoveFailed = "certsteward: a file could not be moved into place";
    if (!moves.empty() && execWorks_) {
      // The command proves itself (no extra round trip on the delivery path): an SFTP-only
      // account runs the SFTP server instead, and the probe's line never comes back.
      std::string command = "echo " + std::string(kProbe) + " >&2; ";
      bool first = true;
      for (const auto& [from, path] : moves) {
        command += (first ? "{ " : " && ") + std::string("mv -f -- ") + shellQuote(from) + " " +
                   shellQuote(path);
        first = false;
      }
      command += "; } || { echo '" + std::string(kMoveFailed) + "' >&2; exit 97; }";
      if (!reload.empty()) command += "\n" + reload;
      auto ran = exec(command);
      if (ran && ran->second.find(kProbe) == std::string::npos) {
        execWorks_ = false;  // nothing ran: SFTP, then the reload (which says so)
        execProbed_ = true;
        ran = makeError(ErrorCode::unavailable, "the host runs no commands", "RELOAD_FAILED");
      } else if (ran) {
        execProbed_ = true;
        ran->second.erase(ran->second.find(kProbe), kProbe.size() + 1);  // and its newline
      }
      if (ran && ran->first == 0) return {};
      if (!ran && ran.error().reason == "TIMEOUT") return ran.error();
      if (ran && ran->first == 97 && ran->second.find(kMoveFailed) != std::string::npos) {
        return makeError(ErrorCode::unavailable, kMoveFailed, "WRITE_FAILED");
      }
      if (ran) {
        const std::string line = common::lastOutputLine(ran->second);
        return makeError(ErrorCode::unavailable,
                         "the reload command exited with status " + std::to_string(ran->first) +
                             (line.empty() ? "" : ": " + line),
                         "RELOAD_FAILED");
      }
      execWorks_ = false;  // no commands on this host: SFTP, then the reload (which says so)
    }
    if (auto s = moveBySftp(moves); !s) return s;
    return reload.empty() ? domain::Status{} : run(reload);
  }

  domain::Status moveBySftp(const Moves& moves) {
    for (const auto& [from, path] : moves) {
      sftp_attributes pending = sftp_lstat(sftp_, from.c_str());
      if (pending == nullptr) continue;  // moved by the command before it stopped
      sftp_attributes_free(pending);
      if (sftp_rename(sftp_, from.c_str(), path.c_str()) == 0) continue;
      sftp_unlink(sftp_, path.c_str());
      if (sftp_rename(sftp_, from.c_str(), path.c_str()) != 0) {
        return failure("cannot move into place", path);
      }
    }
    return {};
  }

  domain::Status remove(const std::string& path) override {
    if (sftp_unlink(sftp_, path.c_str()) != 0 && sftp_get_error(sftp_) != SSH_FX_NO_SUCH_FILE) {
      return failure("cannot remove", path);
    }
    return {};
  }

  domain::Status makeDirectory(const std::string& dir, unsigned mode) override {
    if (sftp_mkdir(sftp_, dir.c_str(), static_cast<mode_t>(mode)) == 0) {
      // Its mode as asked, whatever the SFTP server's umask.
      if (sftp_chmod(sftp_, dir.c_str(), static_cast<mode_t>(mode)) != 0) {
        return failure("cannot set the mode of", dir);
      }
      return {};
    }
    auto state = stat(dir);  // refuses a symbolic link
    if (!state) return state.error();
    if (state->exists && state->directory) return {};
    return failure("cannot create the directory", dir);
  }

  // Where the host runs commands, its own `test -w` answers (supplementary groups, ACLs and
  // read-only mounts included); SFTP alone can only be read from the permission bits.
  domain::Result<bool> writableDirectory(const std::string& dir) override {
    if (commandsRun()) {
      auto ran = exec("test -d " + shellQuote(dir) + " && test -w " + shellQuote(dir));
      if (ran) return ran->first == 0;
      if (ran.error().reason == "TIMEOUT") return ran.error();
      execWorks_ = false;  // no commands on this host after all: the permission bits below
    }
    sftp_attributes a = sftp_stat(sftp_, dir.c_str());
    if (a == nullptr) return false;
    const bool directory = a->type == SSH_FILEXFER_TYPE_DIRECTORY;
    const auto perms = a->permissions;
    const auto uid = a->uid;
    const auto gid = a->gid;
    sftp_attributes_free(a);
    if (!directory) return false;
    // Who we are, as SFTP can tell: the owner of our home directory.
    if (!home_) {
      char* canonical = sftp_canonicalize_path(sftp_, ".");
      sftp_attributes h = canonical != nullptr ? sftp_stat(sftp_, canonical) : nullptr;
      ssh_string_free_char(canonical);
      home_ = h != nullptr ? std::pair{h->uid, h->gid} : std::pair<uint32_t, uint32_t>{~0u, ~0u};
      if (h != nullptr) sftp_attributes_free(h);
    }
    return home_->first == 0 || (uid == home_->first && (perms & 0300) == 0300) ||
           (gid == home_->second && (perms & 0030) == 0030) || (perms & 0003) == 0003;
  }

  domain::Status run(const std::string& command) override {
    if (!commandsRun()) return noCommands();
    auto ran = exec(command);
    if (!ran) return ran.error();
    if (ran->first != 0) {
      const std::string line = common::lastOutputLine(ran->second);
      return makeError(ErrorCode::unavailable,
                       "the reload command exited with status " + std::to_string(ran->first) +
                           (line.empty() ? "" : ": " + line),
                       "RELOAD_FAILED");
    }
    return {};
  }

  domain::Status commandExists(const std::string& command) override {
    if (!commandsRun()) return noCommands();
    const std::string program = command.substr(0, command.find(' '));
    auto ran = exec("command -v " + shellQuote(program));
    if (!ran) return ran.error();
    if (ran->first != 0) {
      return makeError(ErrorCode::failed_precondition,
                       "the reload command " + program + " is not found on the host",
                       "RELOAD_FAILED");
    }
    return {};
  }

 private:
  domain::Error failure(const std::string& what, const std::string& path) {
    return makeError(ErrorCode::unavailable,
                     what + " " + path + " (SFTP error " + std::to_string(sftp_get_error(sftp_)) +
                         ": " + ssh_get_error(session_) + ")",
                     "WRITE_FAILED");
  }

  static domain::Error noCommands() {
    return makeError(ErrorCode::unavailable,
                     "the host runs no commands for this account (SFTP only): no reload command "
                     "can run",
                     "RELOAD_FAILED");
  }

  // Whether the host runs commands for this account, asked once per session: an SFTP-only
  // account (`ForceCommand internal-sftp`) accepts the request but runs the SFTP server instead,
  // which never echoes the probe.
  bool commandsRun() {
    if (!execProbed_) {
      execProbed_ = true;
      auto ran = exec("echo " + std::string(kProbe));
      execWorks_ = ran && ran->first == 0 && ran->second.find(kProbe) != std::string::npos;
    }
    return execWorks_;
  }

  // Runs `command` on the host; its exit status and output (at most 16 KiB).
  domain::Result<std::pair<int, std::string>> exec(const std::string& command) {
    std::unique_ptr<ssh_channel_struct, void (*)(ssh_channel)> channel(ssh_channel_new(session_),
                                                                       ssh_channel_free);
    if (!channel || ssh_channel_open_session(channel.get()) != SSH_OK ||
        ssh_channel_request_exec(channel.get(), command.c_str()) != SSH_OK) {
      return makeError(ErrorCode::unavailable,
                       std::string("the host runs no command: ") + ssh_get_error(session_),
                       "RELOAD_FAILED");
    }
    std::string output;
    char buf[4096];
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds{timeoutMs_};
    // Both outputs until the end; each wait bounded by what is left of the timeout.
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) {
        ssh_channel_close(channel.get());
        return makeError(
            ErrorCode::unavailable,
            "the reload command did not finish within " + std::to_string(timeoutMs_ / 1000) + " s",
            "TIMEOUT");
      }
      const int n =
          ssh_channel_read_timeout(channel.get(), buf, sizeof buf, 0,
                                   static_cast<int>(std::min<std::int64_t>(left.count(), 1000)));
      if (n == SSH_ERROR) {
        return makeError(ErrorCode::unavailable, "the connection broke during the command",
                         "RELOAD_FAILED");
      }
      if (n > 0 && output.size() < 16384) output.append(buf, static_cast<std::size_t>(n));
      // Standard error is drained as it comes: the end is seen only once both are empty.
      for (int e = 0; (e = ssh_channel_read_nonblocking(channel.get(), buf, sizeof buf, 1)) > 0;) {
        if (output.size() < 16384) output.append(buf, static_cast<std::size_t>(e));
      }
      if (n <= 0 &&
          (ssh_channel_is_eof(channel.get()) != 0 || ssh_channel_is_closed(channel.get()) != 0)) {
        break;
      }
    }
    ssh_channel_send_eof(channel.get());
    int status = -1;
    for (int i = 0; i < 50 && status < 0; ++i) {  // the exit status follows the end of output
      status = ssh_channel_get_exit_status(channel.get());
    }
    ssh_channel_close(channel.get());
    return std::pair{status, output};
  }

  ssh_session session_ = nullptr;
  sftp_session sftp_ = nullptr;
  std::int64_t timeoutMs_ = 30000;
  std::optional<std::pair<uint32_t, uint32_t>> home_;
  static constexpr std::string_view kProbe = "certsteward-exec-probe";
  bool execWorks_ = true;
  bool execProbed_ = false;
};

}  // namespace

TargetOutcome SshModule::putChallengeFile(const ports::TargetAccess& target,
                                          const std::string& token, const std::string& content) {
  SshTarget host;
  if (auto refused = host.open(target)) return *refused;
  return distribution::putChallengeFile(host, target, token, content);
}

TargetOutcome SshModule::removeChallengeFile(const ports::TargetAccess& target,
                                             const std::string& token) {
  SshTarget host;
  if (auto refused = host.open(target)) return *refused;
  return distribution::removeChallengeFile(host, target, token);
}

TargetOutcome SshModule::plan(const ports::TargetAccess& target,
                              const domain::CertificateVersion& next) {
  SshTarget host;
  if (auto refused = host.open(target)) return *refused;
  return planFiles(host, target, next);
}

TargetOutcome SshModule::deliver(const ports::TargetAccess& target,
                                 const domain::CertificateVersion& next) {
  SshTarget host;
  if (auto refused = host.open(target)) return *refused;
  const auto patience = std::min(millis(target.timeout), verifyPatience());
  return deliverFiles(host, target, next, [&](const domain::Settings& s, const std::string& leaf) {
    return checkServedCertificate(s, leaf, patience);
  });
}

TargetOutcome SshModule::restore(const ports::TargetAccess& target,
                                 const domain::CertificateVersion*) {
  SshTarget host;
  if (auto refused = host.open(target)) return *refused;
  return restoreFiles(host, target);
}

TargetOutcome SshModule::check(const ports::TargetAccess& target) {
  SshTarget host;
  if (auto refused = host.open(target)) return *refused;
  return TargetOutcome::success();
}

}  // namespace certsteward::adapters::distribution
