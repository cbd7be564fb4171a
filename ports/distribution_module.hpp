// DistributionModule: delivers a certificate to one target of a module configuration (an SSH
// host, a local directory, an HAProxy, a webhook). The DistributionRunner drives it: it opens the
// target's credential, runs targets concurrently, times them, rolls back, and records results;
// a module only talks to its one target and says what happened in the words of the target error
// codes (domain/distribution.hpp). Settings reach it already checked (distribution_settings.hpp).
// Every method is thread-safe: the runner calls one module for several targets at once.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/credential.hpp>
#include <certsteward/domain/distribution.hpp>
#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/module_config.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::ports {

// One target, as the module needs it.
struct TargetAccess {
  std::string name;
  domain::Settings settings;                     // effective: the configuration's + the target's
  std::optional<domain::Credential> credential;  // when the target names one (secret sealed)
  std::string secret;        // the credential's secret, opened; never logged or returned
  domain::Duration timeout;  // for each network step (connect, a command, a request)
  // A line for the job log (a step a person can follow); never a secret.
  std::function<void(const std::string&)> step;
};

// What happened on one target.
struct TargetOutcome {
  bool ok = false;
  std::string error;                                // for a person; never a secret
  std::string error_code;                           // a target_error code
  std::vector<domain::PlannedChange> changes = {};  // what a dry-run would change
  // For deliver: whether the target changed (false when it already held the version; an
  // automatic rollback then leaves it alone).
  bool changed = true;

  static TargetOutcome success() { return {true, {}, {}}; }
  static TargetOutcome unchanged() {
    TargetOutcome o{true, {}, {}};
    o.changed = false;
    return o;
  }
  static TargetOutcome failure(std::string code, std::string error) {
    return {false, std::move(error), std::move(code)};
  }
};

class DistributionModule {
 public:
  virtual ~DistributionModule() = default;

  /**
   * Connects, authenticates, checks the host key, checks that every file could be written and
   * the reload command exists, and reports the planned changes. Changes nothing on the target.
   */
  virtual TargetOutcome plan(const TargetAccess& target,
                             const domain::CertificateVersion& next) = 0;

  /**
   * Puts `next` in place atomically and reloads; with verify_address set, checks that the
   * served leaf is `next`'s. On failure the target is left as it was (what was replaced is put
   * back). Keeps what it replaced where restore() finds it.
   */
  virtual TargetOutcome deliver(const TargetAccess& target,
                                const domain::CertificateVersion& next) = 0;

  /**
   * Puts back what the last deliver() replaced. `previous` is the version the service recorded
   * as delivered before (nullptr when none); modules that keep the replaced files on the target
   * ignore it. NOTHING_TO_RESTORE when there is nothing.
   */
  virtual TargetOutcome restore(const TargetAccess& target,
                                const domain::CertificateVersion* previous) = 0;

  /** Connects, authenticates and checks the host key; changes nothing. */
  virtual TargetOutcome check(const TargetAccess& target) = 0;

  /**
   * HTTP-01 through a webroot: writes `content` (readable by the web server) to
   * `<webroot>/.well-known/acme-challenge/<token>`, the directories made as needed, where
   * `webroot` is the target's setting. WEBROOT_UNSUPPORTED when the module cannot; `token` is
   * base64url (the issuer checked it).
   */
  virtual TargetOutcome putChallengeFile(const TargetAccess& target, const std::string& token,
                                         const std::string& content) {
    (void)target, (void)token, (void)content;
    return TargetOutcome::failure(domain::target_error::webroot_unsupported,
                                  "this module cannot write HTTP-01 files");
  }

  /** Removes what putChallengeFile() wrote; an absent file is success. */
  virtual TargetOutcome removeChallengeFile(const TargetAccess& target, const std::string& token) {
    (void)target, (void)token;
    return TargetOutcome::failure(domain::target_error::webroot_unsupported,
                                  "this module cannot write HTTP-01 files");
  }

  /** Whether restore() exists, and whether it needs the service's `previous` version. */
  virtual bool supportsRollback() const = 0;
  virtual bool rollbackNeedsPreviousVersion() const = 0;
};

using DistributionModulePtr = std::unique_ptr<DistributionModule>;

}  // namespace certsteward::ports
