// CaActivityRecorder: the issuance's side of CA quotas. Every order, issued certificate, failed
// validation and rate-limit refusal is recorded per registered domain, and a refusal's
// Retry-After holds back every order for that domain through the same ACME account until it has
// passed. (CaQuotaService reads what is recorded here.) Thread-safe.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/acme_account.hpp>
#include <certsteward/domain/ca_quota.hpp>
#include <certsteward/domain/job.hpp>
#include <certsteward/ports/ca_activity_log.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/issuer.hpp>
#include <certsteward/ports/public_suffixes.hpp>
#include <certsteward/services/job_handler.hpp>

namespace certsteward::services {

class CaActivityRecorder {
 public:
  struct Ports {
    ports::CaActivityLog& activity;
    const ports::PublicSuffixes& suffixes;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
  };
  explicit CaActivityRecorder(Ports ports) : p_(ports) {}

  // The registered domains of `names`, each once, in order.
  std::vector<std::string> registeredDomains(const std::vector<std::string>& names) const;
  // The furthest-reaching rate limit the CA announced for one of `domains` through `account`
  // that still holds. A domain whose record cannot be read holds nothing (the CA will say).
  std::optional<domain::CaActivity> activeRateLimit(const domain::AcmeAccount& account,
                                                    const std::vector<std::string>& domains,
                                                    const JobHandler::Log& log) const;
  // Records what the CA was asked and answered during one order of `job` through `account`; a
  // rate limit's Retry-After becomes notes.not_before.
  void record(const domain::Job& job, const domain::AcmeAccount& account,
              const std::vector<std::string>& domains, const ports::IssueReport& report,
              bool issued, AttemptNotes& notes, const JobHandler::Log& log);

 private:
  Ports p_;
};

}  // namespace certsteward::services
