// Putting certificate files on a target, and back.
#include <certsteward/adapters/distribution/target_files.hpp>

#include <certsteward/domain/encoding.hpp>

namespace certsteward::adapters::distribution {

using domain::target_error::nothing_to_restore;
using domain::target_error::reload_failed;
using domain::target_error::verify_failed;
using domain::target_error::write_failed;
using ports::TargetOutcome;

namespace {

struct Installed {
  PlannedFile file;
  bool existed = false;
};

// Puts back what `installed` replaced: the set-aside file where there was one, else removes the
// new file. Best effort: every file is tried; returns the first failure.
domain::Status undo(TargetFileSystem& fs, const std::vector<Installed>& installed) {
  domain::Status first;
  for (auto it = installed.rbegin(); it != installed.rend(); ++it) {
    const std::string& path = it->file.path;
    domain::Status s;
    if (!it->existed) {
      s = fs.remove(path);
    } else {
      auto state = fs.stat(path + kPreviousSuffix);
      auto bytes = fs.read(path + kPreviousSuffix);
      if (!state) {
        s = state.error();
      } else if (!bytes) {
        s = bytes.error();
      } else if (s = fs.write(path + kNewSuffix, *bytes, state->mode); s) {
        s = fs.installAll({{path + kNewSuffix, path}});
      }
    }
    if (!s && first) first = s;
  }
  return first;
}

}  // namespace

std::string directoryOf(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == 0 ? "/" : path.substr(0, slash);
}

TargetOutcome outcomeOf(const domain::Error& error, const char* code) {
  const std::string& r = error.reason;
  const bool targetCode = r == "TIMEOUT" || r == "CONNECT_FAILED" || r == "AUTH_FAILED" ||
                          r == "HOST_KEY_MISMATCH" || r == "WRITE_FAILED" || r == "RELOAD_FAILED" ||
                          r == "VERIFY_FAILED";
  return TargetOutcome::failure(targetCode ? r : code, error.message);
}

std::vector<PlannedFile> filesFor(const domain::Settings& settings,
                                  const domain::CertificateVersion& version) {
  const auto files = domain::targetFiles(settings);
  const auto mode = static_cast<unsigned>(files.cert_mode);
  std::vector<PlannedFile> out;
  if (!files.cert_path.empty()) out.push_back({files.cert_path, version.certificate_pem, mode});
  if (!files.chain_path.empty()) out.push_back({files.chain_path, version.chain_pem, mode});
  if (!files.fullchain_path.empty()) {
    out.push_back({files.fullchain_path, version.fullchainPem(), mode});
  }
  if (!files.key_path.empty()) out.push_back({files.key_path, version.private_key_pem, 0600, true});
  return out;
}

TargetOutcome planFiles(TargetFileSystem& fs, const ports::TargetAccess& target,
                        const domain::CertificateVersion& next) {
  auto out = TargetOutcome::success();
  for (const auto& f : filesFor(target.settings, next)) {
    const std::string dir = directoryOf(f.path);
    auto writable = fs.writableDirectory(dir);
    if (!writable) return outcomeOf(writable.error(), write_failed);
    if (!*writable) {
      return TargetOutcome::failure(write_failed, "cannot create files in " + dir);
    }
    auto state = fs.stat(f.path);
    if (!state) return outcomeOf(state.error(), write_failed);
    if (state->directory) return TargetOutcome::failure(write_failed, f.path + " is a directory");
    std::string action = "create";
    if (state->exists) {
      auto bytes = fs.read(f.path);
      if (!bytes) return outcomeOf(bytes.error(), write_failed);
      action = *bytes == f.content && (state->mode & 0777) == f.mode ? "unchanged" : "replace";
    }
    out.changes.push_back({f.path, action});
  }
  if (const auto reload = domain::settingOf(target.settings, "reload_command"); !reload.empty()) {
    if (auto found = fs.commandExists(reload); !found)
      return outcomeOf(found.error(), reload_failed);
    out.changes.push_back({"reload: " + reload, "run"});
  }
  if (target.step) target.step("dry-run: every path can be written");
  return out;
}

TargetOutcome deliverFiles(TargetFileSystem& fs, const ports::TargetAccess& target,
                           const domain::CertificateVersion& next, const VerifyServed& verify) {
  std::vector<Installed> changed;
  std::vector<PlannedFile> same;  // already in place
  for (auto& f : filesFor(target.settings, next)) {
    auto state = fs.stat(f.path);
    if (!state) return outcomeOf(state.error(), write_failed);
    if (state->directory) return TargetOutcome::failure(write_failed, f.path + " is a directory");
    if (state->exists && (state->mode & 0777) == f.mode) {
      auto bytes = fs.read(f.path);
      if (!bytes) return outcomeOf(bytes.error(), write_failed);
      if (*bytes == f.content) {
        same.push_back(std::move(f));
        continue;
      }
    }
    changed.push_back({std::move(f), state->exists});
  }
  const std::string reload = domain::settingOf(target.settings, "reload_command");
  if (changed.empty()) {
    if (target.step) target.step("every file already holds serial " + next.serial_number);
  } else {
    // Every new file written beside its place before anything is replaced.
    for (std::size_t i = 0; i < changed.size(); ++i) {
      const auto& f = changed[i].file;
      if (auto s = fs.write(f.path + kNewSuffix, f.content, f.mode); !s) {
        for (std::size_t j = 0; j <= i; ++j)
          (void)fs.remove(changed[j].file.path + kNewSuffix);
        return outcomeOf(s.error(), write_failed);
      }
    }
    // The set-aside copies stay one version: a file this run leaves as it is is set aside too
    // (a rollback must not pair an older chain with the leaf this run replaced).
    for (const auto& f : same) {
      if (auto s = fs.write(f.path + kPreviousSuffix, f.content, f.mode); !s) {
        for (const auto& c : changed)
          (void)fs.remove(c.file.path + kNewSuffix);
        return outcomeOf(s.error(), write_failed);
      }
    }
    TargetFileSystem::Moves moves;
    for (const auto& c : changed) {
      const std::string& path = c.file.path;
      const auto asideMode = c.file.secret ? std::optional<unsigned>(0600) : std::nullopt;
      const domain::Status s = c.existed ? fs.keepAside(path, path + kPreviousSuffix, asideMode)
                                         : fs.remove(path + kPreviousSuffix);
      if (!s) {
        for (const auto& rest : changed)
          (void)fs.remove(rest.file.path + kNewSuffix);
        return outcomeOf(s.error(), write_failed);
      }
      moves.emplace_back(path + kNewSuffix, path);
    }
    // The files move into place and the reload command runs (in one round where the target
    // allows it).
    if (auto s = fs.installAllThenRun(moves, reload); !s) {
      (void)undo(fs, changed);  // some may have moved: undo puts back what is there
      for (const auto& rest : changed)
        (void)fs.remove(rest.file.path + kNewSuffix);
      const bool reloadRan = s.error().reason != write_failed;
      if (reloadRan && !reload.empty()) (void)fs.run(reload);  // back to the previous files
      return outcomeOf(s.error(), reloadRan ? reload_failed : write_failed);
    }
    if (target.step) {
      for (const auto& c : changed)
        target.step("wrote " + c.file.path);
      if (!reload.empty()) target.step("reloaded");
    }
  }
  if (verify) {
    if (auto problem = verify(target.settings, next.certificate_pem)) {
      if (!changed.empty()) {
        (void)undo(fs, changed);
        if (!reload.empty()) (void)fs.run(reload);
      }
      return TargetOutcome::failure(verify_failed, *problem);
    }
    if (target.step) target.step("serves serial " + next.serial_number);
  }
  return changed.empty() ? TargetOutcome::unchanged() : TargetOutcome::success();
}

TargetOutcome restoreFiles(TargetFileSystem& fs, const ports::TargetAccess& target) {
  domain::CertificateVersion none;
  TargetFileSystem::Moves moves;
  std::vector<std::string> kept;  // created by the delivery: no earlier version to put back
  for (const auto& f : filesFor(target.settings, none)) {
    const std::string aside = f.path + kPreviousSuffix;
    auto state = fs.stat(aside);
    if (!state) return outcomeOf(state.error(), write_failed);
    if (!state->exists) {
      if (auto present = fs.stat(f.path); present && present->exists) kept.push_back(f.path);
      continue;
    }
    auto bytes = fs.read(aside);
    if (!bytes) return outcomeOf(bytes.error(), write_failed);
    if (auto s = fs.write(f.path + kNewSuffix, *bytes, state->mode); !s) {
      for (const auto& m : moves)
        (void)fs.remove(m.first);
      (void)fs.remove(f.path + kNewSuffix);
      return outcomeOf(s.error(), write_failed);
    }
    moves.emplace_back(f.path + kNewSuffix, f.path);
  }
  if (moves.empty()) {
    return TargetOutcome::failure(nothing_to_restore,
                                  "no file was set aside here: nothing to restore");
  }
  if (auto s = fs.installAll(moves); !s) return outcomeOf(s.error(), write_failed);
  if (target.step) {
    for (const auto& m : moves)
      target.step("restored " + m.second);
    for (const auto& path : kept)
      target.step("kept " + path + ": it did not exist before the delivery (never deleted)");
  }
  if (const auto reload = domain::settingOf(target.settings, "reload_command"); !reload.empty()) {
    if (auto s = fs.run(reload); !s) return outcomeOf(s.error(), reload_failed);
    if (target.step) target.step("reloaded");
  }
  return TargetOutcome::success();
}

namespace {

// The directory of the token files, or why the target has none.
std::optional<std::string> challengeDirectory(const ports::TargetAccess& target) {
  std::string webroot = domain::settingOf(target.settings, "webroot");
  if (webroot.empty()) return std::nullopt;
  while (webroot.size() > 1 && webroot.back() == '/')
    webroot.pop_back();
  return (webroot == "/" ? std::string() : webroot) + "/.well-known/acme-challenge";
}

TargetOutcome badToken() {
  return TargetOutcome::failure(domain::target_error::write_failed,
                                "refusing an HTTP-01 token that is not base64url");
}

TargetOutcome noWebroot() {
  return TargetOutcome::failure(domain::target_error::write_failed,
                                "the target has no webroot setting for HTTP-01");
}

}  // namespace

TargetOutcome putChallengeFile(TargetFileSystem& fs, const ports::TargetAccess& target,
                               const std::string& token, const std::string& content) {
  if (!domain::isAcmeToken(token)) return badToken();
  const auto dir = challengeDirectory(target);
  if (!dir) return noWebroot();
  const std::string wellKnown = directoryOf(*dir);
  for (const auto& d : {wellKnown, *dir}) {
    if (auto s = fs.makeDirectory(d, 0755); !s) {
      return outcomeOf(s.error(), domain::target_error::write_failed);
    }
  }
  const std::string path = *dir + "/" + token;
  if (auto s = fs.write(path, content, 0644); !s) {
    return outcomeOf(s.error(), domain::target_error::write_failed);
  }
  if (target.step) target.step("wrote the HTTP-01 file " + path);
  return TargetOutcome::success();
}

TargetOutcome removeChallengeFile(TargetFileSystem& fs, const ports::TargetAccess& target,
                                  const std::string& token) {
  if (!domain::isAcmeToken(token)) return badToken();
  const auto dir = challengeDirectory(target);
  if (!dir) return noWebroot();
  if (auto s = fs.remove(*dir + "/" + token); !s) {
    return outcomeOf(s.error(), domain::target_error::write_failed);
  }
  return TargetOutcome::success();
}

}  // namespace certsteward::adapters::distribution
