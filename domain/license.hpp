// The licence: which plan is in force now, the certificate cap it implies, and the status view
// of docs/api.md (GET /license/status). The state is a function of the stored licence and the time,
// so it needs no timer: free (no licence) -> enterprise (activated) -> grace (7 days after exp) ->
// free.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

enum class LicenseState { free, enterprise, grace };
std::string_view nameOf(LicenseState s) noexcept;

inline constexpr std::int64_t kFreeCertLimit = 1;
inline constexpr Duration kLicenseGracePeriod = std::chrono::days{7};
// Activation refuses a licence whose exp lies further in the past than this.
inline constexpr Duration kLicenseClockTolerance = std::chrono::minutes{5};

// A verified licence (signature checked by the adapter that decoded it).
struct License {
  std::string plan_name;
  std::optional<std::int64_t> cert_limit;  // 0 or missing = unlimited
  Timestamp expires_at{};
  std::string license_key;  // as pasted by the owner
  std::string fingerprint;
  std::string activation_id;
  Timestamp activated_at{};
  std::optional<Timestamp> last_checked_at;
  bool api_key_configured = false;
  std::string license_mode = "offline";  // "online" or "offline"
};

// The state at `now` given the stored licence (nullopt = none ever activated).
LicenseState licenseState(const std::optional<License>& license, Timestamp now) noexcept;

// The certificate cap at `now`; nullopt = unlimited.
std::optional<std::int64_t> certificateCap(const std::optional<License>& license,
                                           Timestamp now) noexcept;

// Whether one more certificate may be issued with `existing` already counted against the cap.
// resource_exhausted at the cap. Renewals never call this: they are never blocked.
Status checkIssuanceAllowed(const std::optional<License>& license, Timestamp now,
                            std::int64_t existing);

// Whether `candidate` may be activated at `now`: its exp must not lie more than the clock
// tolerance in the past. The signature was checked by the decoder.
Status checkActivation(const License& candidate, Timestamp now);

// The licence status view (docs/api.md, GET /license/status).
struct LicenseStatusView {
  bool valid = false;
  std::string plan;  // "free" or "enterprise"
  std::string plan_name;
  std::int64_t cert_limit = 0;  // 0 = unlimited
  std::optional<Timestamp> expires_at;
  bool in_grace_period = false;
  std::int64_t grace_remaining_seconds = 0;
  std::string license_key;
  std::string fingerprint;
  std::string activation_id;
  std::optional<Timestamp> activated_at;
  std::optional<Timestamp> last_checked_at;
  bool api_key_configured = false;
  std::string license_mode;
};

// The key as the status view shows it: its first and last 4 characters, never all of it.
std::string maskLicenseKey(std::string_view key);

// The status view; license_key is masked.
LicenseStatusView licenseStatusView(const std::optional<License>& license, Timestamp now);

}  // namespace certsteward::domain
