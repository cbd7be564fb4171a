// A distribution: one certificate delivered through one module configuration, the outcome of
// its last run per target, and the certificate versions its targets hold (for rollback).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

// One change a dry-run found it would make on a target.
struct PlannedChange {
  std::string what;    // a path, "reload: <command>", "haproxy cert <name>", "POST <url>"
  std::string action;  // "create", "replace", "unchanged", "run", "send"
};

struct TargetResult {
  std::string target_name;
  std::string status;  // "succeeded", "failed", "skipped"; a dry-run or health check: "ok"
  std::string error;
  std::string error_code;  // e.g. "CREDENTIAL_MISSING"
  std::int64_t duration_ms = 0;
  // Set when an automatic rollback restored this target because others of the run failed.
  bool rolled_back = false;
  std::string rollback_error = {};          // why that rollback failed; empty when it worked
  std::vector<PlannedChange> changes = {};  // a dry-run's plan (not stored)
  // An execute that succeeded: whether the target changed (it did not when it already held the
  // version). Only changed targets are rolled back.
  bool changed = false;
};

// The error codes of a target (issue #13).
namespace target_error {
inline constexpr const char* credential_missing = "CREDENTIAL_MISSING";
inline constexpr const char* auth_failed = "AUTH_FAILED";
inline constexpr const char* host_key_mismatch = "HOST_KEY_MISMATCH";
inline constexpr const char* connect_failed = "CONNECT_FAILED";
inline constexpr const char* timeout = "TIMEOUT";
inline constexpr const char* write_failed = "WRITE_FAILED";
inline constexpr const char* reload_failed = "RELOAD_FAILED";
inline constexpr const char* verify_failed = "VERIFY_FAILED";
inline constexpr const char* module_unavailable = "MODULE_UNAVAILABLE";
inline constexpr const char* nothing_to_restore = "NOTHING_TO_RESTORE";
inline constexpr const char* rejected = "REJECTED";  // a webhook answered other than 2xx
inline constexpr const char* webroot_unsupported = "WEBROOT_UNSUPPORTED";  // HTTP-01 files
}  // namespace target_error

// A certificate as delivered: what a target receives, and what a rollback hands back.
struct CertificateVersion {
  Id certificate_id;
  std::string common_name;
  std::vector<std::string> names;
  std::string serial_number;
  std::optional<Timestamp> expires_at;
  std::string certificate_pem;  // leaf
  std::string chain_pem;        // intermediates
  std::string private_key_pem;  // secret: only in memory, sealed at rest

  std::string fullchainPem() const {
    if (certificate_pem.empty() || certificate_pem.back() == '\n')
      return certificate_pem + chain_pem;
    return certificate_pem + "\n" + chain_pem;
  }
};

// A self-delimiting text form of a version (sealed whole before it is stored), and back;
// nullopt for text that is not one.
std::string encodeVersion(const CertificateVersion& v);
std::optional<CertificateVersion> decodeVersion(const std::string& text);

struct Distribution {
  Id id;
  Id project_id;
  Id certificate_id;
  Id module_config_id;
  std::string last_status = "never_run";  // "succeeded", "failed", "partial", "rolled_back"
  std::string last_action = "execute";    // what the last run was: "execute" or "rollback"
  std::string last_error;
  std::optional<Timestamp> last_error_at;
  std::optional<Timestamp> last_run_at;
  std::vector<TargetResult> last_target_results;
  // The version every target holds after the last run that delivered to all of them, and the
  // version that one replaced (what a rollback restores): serials, and the sealed versions
  // (encodeVersion) for modules that hand the previous version back themselves.
  std::string deployed_serial = {};
  std::string deployed_sealed = {};
  std::string previous_serial = {};
  std::string previous_sealed = {};
  Timestamp created_at{};
  Timestamp updated_at{};
};

}  // namespace certsteward::domain
