// DistributionRunner: the distribution_execute job. It delivers the certificate (with its
// private key, opened here and handed only to the module) through every distribution of the
// certificate, records each distribution's outcome per target (`succeeded`, `failed`,
// `partial`), raises distribution.failed for each that did not fully succeed, and clears the
// certificate's distribution_pending once all succeeded. Anything short of that fails the
// attempt, so the job retries with backoff and goes dead (job.failed) when attempts run out.
#pragma once

#include <functional>
#include <string>

#include "domain/job.hpp"
#include "ports/certificate_repository.hpp"
#include "ports/clock.hpp"
#include "ports/distribution_modules.hpp"
#include "ports/distribution_repository.hpp"
#include "ports/module_config_repository.hpp"
#include "ports/notifier.hpp"
#include "ports/secret_box.hpp"

namespace certsteward::domain {

class DistributionRunner {
 public:
  struct Ports {
    ports::CertificateRepository& certificates;
    ports::DistributionRepository& distributions;
    ports::ModuleConfigRepository& moduleConfigs;
    ports::DistributionModules& modules;
    const ports::SecretBox& secrets;
    ports::Notifier& notifier;
    const ports::Clock& clock;
  };
  using Log = std::function<void(LogLevel, const std::string&)>;

  explicit DistributionRunner(Ports ports) : p_(ports) {}

  Status execute(const Job& job, const Log& log);

 private:
  Ports p_;
};

}  // namespace certsteward::domain
