// Licence activation and status.
#include <certsteward/services/license_service.hpp>

namespace certsteward::services {

domain::Result<LicenseStatus> LicenseService::withUsage(domain::LicenseStatusView view) const {
  LicenseStatus out{std::move(view), 0};
  if (certificates_ != nullptr) {
    auto used = certificates_->countAll();
    if (!used) return used.error();
    out.certificates_used = *used;
  }
  return out;
}

domain::Result<LicenseStatus> LicenseService::activate(const Principal& who,
                                                       const RequestContext& ctx,
                                                       const std::string& licenseKey) {
  if (auto s = access_.check(who, Action::activate_license); !s) return s.error();
  auto license = verifier_.verify(licenseKey);
  if (!license) return license.error();
  const domain::Timestamp now = clock_.now();
  if (auto s = checkActivation(*license, now); !s) return s.error();
  license->activated_at = now;
  license->last_checked_at = now;
  const domain::Status done = work_.run(
      [&]() -> domain::Status {
        if (auto s = licenses_.put(*license); !s) return s;
        return audit_.record(&who, ctx, "license.activate", "license", license->activation_id,
                             std::nullopt, license->plan_name);
      },
      {kLicenseGuard});
  if (!done) return done.error();
  return withUsage(licenseStatusView(*license, now));
}

domain::Result<LicenseStatus> LicenseService::status(const Principal& who) {
  if (auto s = access_.check(who, Action::read_license); !s) return s.error();
  auto license = licenses_.get();
  if (!license) return license.error();
  return withUsage(licenseStatusView(*license, clock_.now()));
}

}  // namespace certsteward::services
