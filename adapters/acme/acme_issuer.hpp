// AcmeIssuer: the Issuer port over RFC 8555 (libcurl + OpenSSL): directory, nonces (one retry
// on badNonce), JWS with ES256/ES384/RS256, accounts with optional External Account Binding,
// orders (with a profile, and `replaces` on renewals when the CA offers RFC 9773), DNS-01
// through a DnsProvider or HTTP-01 through a responder, IP identifiers (RFC 8738), finalize with a
// CSR for a key it generates, chain download (an alternate chain when one matches the preferred
// issuer), revocation, account key rollover. Every wait is bounded; the CA's Retry-After is
// honoured, else it polls every `poll_interval`. CA problems become domain errors whose message
// keeps the CA's detail and whose reason is the ACME error type ("rateLimited", "unauthorized",
// ...). Thread-safe: each call has its own session.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/ports/issuer.hpp>
#include <certsteward/ports/secret_box.hpp>

namespace certsteward::adapters::acme {

struct AcmeSettings {
  std::string ca_bundle;  // PEM file trusted for the CA's HTTPS besides the system store
  // The trust bundle (PEM) of the CA provider at a directory URL, when it has one: then only it
  // is trusted for that CA's HTTPS. None: ca_bundle for every CA.
  std::function<std::string(const std::string& directoryUrl)> trust_bundle_for = nullptr;
  std::chrono::milliseconds request_timeout{30000};
  std::chrono::milliseconds order_timeout{300000};  // all polling of one order
  std::chrono::milliseconds dns_timeout{120000};    // until the TXT records are visible
  std::chrono::milliseconds poll_interval{500};     // when the CA sends no Retry-After
  // The policy a project's ACME directory (and every URL it leads to) must pass
  // (network.outbound_allow); none: no policy (an embedder's choice; the server always sets it).
  std::shared_ptr<const common::Outbound> outbound = nullptr;
};

class AcmeIssuer : public ports::Issuer {
 public:
  AcmeIssuer(const ports::SecretBox& secrets, AcmeSettings settings);

  domain::Result<ports::AccountState> registerAccount(const domain::AcmeAccount& account) override;
  domain::Result<ports::IssuedCertificate> issue(const ports::IssueRequest& request,
                                                 ports::DnsProvider& dns) override;
  domain::Status revoke(const domain::AcmeAccount& account,
                        const std::string& certificatePem) override;
  domain::Result<ports::AccountState> rolloverKey(const domain::AcmeAccount& account) override;
  domain::Result<ports::RenewalInfo> renewalInfo(const domain::AcmeAccount& account,
                                                 const std::string& certificatePem) override;
  ports::IssuerInfo info() const override;
  domain::Result<domain::CaDirectoryMeta> readDirectory(const std::string& directoryUrl,
                                                        const std::string& trustBundle) override;

 private:
  const ports::SecretBox& secrets_;
  AcmeSettings settings_;
};

}  // namespace certsteward::adapters::acme
