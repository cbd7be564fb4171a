// The check_renewal_info job (RFC 9773, ACME Renewal Information): asks the CA that issued a
// certificate for its suggested renewal window again, as the CA's Retry-After says. A window that
// now starts before the certificate's next_renewal_at (a CA revoking in bulk moves it earlier)
// moves the renewal to a random point inside it; the next question is scheduled either way. A CA
// that cannot be asked never holds a renewal back: the renewal time stays as it was (the
// threshold), and the question is asked again later.
#pragma once

#include <certsteward/ports/acme_account_repository.hpp>
#include <certsteward/ports/certificate_repository.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/issuer.hpp>
#include <certsteward/services/job_handler.hpp>

namespace certsteward::services {

class RenewalInfoJobHandler : public JobHandler {
 public:
  struct Ports {
    ports::CertificateRepository& certificates;
    const ports::AcmeAccountRepository& accounts;
    ports::Issuer& issuer;
    const ports::Clock& clock;
  };
  // `random`: a number in [0, 1) for each pick (the point in a window, the jitter of the next
  // question); the default draws from a random engine.
  explicit RenewalInfoJobHandler(Ports ports, std::function<double()> random = {});

  std::vector<domain::JobType> types() const override {
    return {domain::JobType::check_renewal_info};
  }
  // Ok whenever the certificate was brought up to date or the question rescheduled; an error only
  // when the certificate could not be stored (the runner retries).
  domain::Status attempt(const domain::Job& job, const domain::StopSignal& stop, const Log& log,
                         AttemptNotes& notes) override;

 private:
  // The certificate changed with compare-and-set retries; false when it went away.
  domain::Result<bool> change(const domain::Job& job,
                              const std::function<bool(domain::Certificate&)>& apply);

  Ports p_;
  std::function<double()> random_;
};

}  // namespace certsteward::services
