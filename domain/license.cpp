// Licence states, cap and status view.
#include <certsteward/domain/license.hpp>

namespace certsteward::domain {

std::string_view nameOf(LicenseState s) noexcept {
  switch (s) {
    case LicenseState::free:
      return "free";
    case LicenseState::enterprise:
      return "enterprise";
    case LicenseState::grace:
      return "grace";
  }
  return "free";
}

LicenseState licenseState(const std::optional<License>& license, Timestamp now) noexcept {
  if (!license) return LicenseState::free;
  if (now < license->expires_at) return LicenseState::enterprise;
  if (now < license->expires_at + kLicenseGracePeriod) return LicenseState::grace;
  return LicenseState::free;
}

std::optional<std::int64_t> certificateCap(const std::optional<License>& license,
                                           Timestamp now) noexcept {
  if (licenseState(license, now) == LicenseState::free) return kFreeCertLimit;
  const std::int64_t limit = license->cert_limit.value_or(0);
  if (limit <= 0) return std::nullopt;
  return limit;
}

Status checkIssuanceAllowed(const std::optional<License>& license, Timestamp now,
                            std::int64_t existing) {
  const auto cap = certificateCap(license, now);
  if (cap && existing >= *cap) {
    return makeError(ErrorCode::resource_exhausted,
                     "licence limit reached: " + std::to_string(*cap) +
                         " certificate(s) allowed on the " +
                         std::string(nameOf(licenseState(license, now))) +
                         " plan; renewals continue, new issuance needs a licence with a higher "
                         "cert_limit",
                     "LICENSE_LIMIT");
  }
  return {};
}

Status checkActivation(const License& candidate, Timestamp now) {
  if (candidate.expires_at + kLicenseClockTolerance < now) {
    return makeError(ErrorCode::invalid_argument, "the licence expired on " +
                                                      formatTimestamp(candidate.expires_at) +
                                                      "; upload a renewed licence");
  }
  if (candidate.cert_limit && *candidate.cert_limit < 0) {
    return makeError(ErrorCode::invalid_argument, "the licence has a negative cert_limit");
  }
  return {};
}

std::string maskLicenseKey(std::string_view key) {
  if (key.size() <= 12) return std::string(key.size(), '*');
  return std::string(key.substr(0, 4)) + "..." + std::string(key.substr(key.size() - 4));
}

LicenseStatusView licenseStatusView(const std::optional<License>& license, Timestamp now) {
  LicenseStatusView view;
  const LicenseState state = licenseState(license, now);
  const auto cap = certificateCap(license, now);
  view.cert_limit = cap.value_or(0);
  view.valid = state != LicenseState::free;
  view.plan = state == LicenseState::free ? "free" : "enterprise";
  view.plan_name = state == LicenseState::free ? "Free" : license->plan_name;
  view.in_grace_period = state == LicenseState::grace;
  if (view.in_grace_period) {
    const auto remaining = license->expires_at + kLicenseGracePeriod - now;
    view.grace_remaining_seconds =
        std::chrono::duration_cast<std::chrono::seconds>(remaining).count();
  }
  if (license) {
    // The stored licence is shown even after it lapsed, so the owner sees what to renew.
    view.expires_at = license->expires_at;
    view.license_key = maskLicenseKey(license->license_key);
    view.fingerprint = license->fingerprint;
    view.activation_id = license->activation_id;
    view.activated_at = license->activated_at;
    view.last_checked_at = license->last_checked_at;
    view.api_key_configured = license->api_key_configured;
    view.license_mode = license->license_mode;
  }
  return view;
}

}  // namespace certsteward::domain
