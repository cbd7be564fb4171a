// The HTTP-01 responders of the issuance jobs (RFC 8555 8.3):
// - ServedHttp01: the answers go into the shared ChallengeTokens, which every instance's
//   `acme.http01_listen` answers from; each expires after `ttl` should its cleanup never run.
// - WebrootHttp01: the token files go through a `file` or `ssh` module configuration, onto
//   every one of its targets (all the web servers that may answer for the names).
#pragma once

#include <string>

#include <certsteward/domain/id.hpp>
#include <certsteward/ports/challenge_tokens.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/issuer.hpp>
#include <certsteward/services/distribution_runner.hpp>

namespace certsteward::services {

class ServedHttp01 : public ports::Http01Responder {
 public:
  ServedHttp01(ports::ChallengeTokens& tokens, const ports::Clock& clock, domain::Duration ttl)
      : tokens_(tokens), clock_(clock), ttl_(ttl) {}
  domain::Status present(const ports::Http01Challenge& challenge) override;
  domain::Status cleanup(const ports::Http01Challenge& challenge) override;

 private:
  ports::ChallengeTokens& tokens_;
  const ports::Clock& clock_;
  domain::Duration ttl_;
};

class WebrootHttp01 : public ports::Http01Responder {
 public:
  WebrootHttp01(DistributionRunner& runner, domain::Id projectId, domain::Id moduleConfigId,
                DistributionRunner::Log log)
      : runner_(runner),
        projectId_(std::move(projectId)),
        moduleConfigId_(std::move(moduleConfigId)),
        log_(std::move(log)) {}
  domain::Status present(const ports::Http01Challenge& challenge) override;
  domain::Status cleanup(const ports::Http01Challenge& challenge) override;

 private:
  DistributionRunner& runner_;
  domain::Id projectId_;
  domain::Id moduleConfigId_;
  DistributionRunner::Log log_;
};

}  // namespace certsteward::services
