// Embedding CertSteward: the services over the memory store, with an issuer this program
// defines itself. It creates a project, an ACME account record and a certificate, runs the
// issuance job through the issuance worker, and prints the certificate's status ("active").
// Exit status 0 when the certificate was issued.
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/certificate_service.hpp>
#include <certsteward/services/issuance_job_handler.hpp>
#include <certsteward/services/job_runner.hpp>
#include <certsteward/services/unit_of_work.hpp>
#include <certsteward/testing/fake_clock.hpp>
#include <certsteward/testing/fakes.hpp>
#include <certsteward/testing/sequential_ids.hpp>

#include <chrono>
#include <cstdio>

using namespace certsteward;

namespace {

// The team's own CA: it "issues" at once, valid for 90 days.
class OwnIssuer : public ports::Issuer {
 public:
  explicit OwnIssuer(const ports::Clock& clock) : clock_(clock) {}
  domain::Result<ports::AccountState> registerAccount(const domain::AcmeAccount&) override {
    return ports::AccountState{"valid", "https://ca.internal/account/1", ""};
  }
  domain::Result<ports::IssuedCertificate> issue(const ports::IssueRequest& request,
                                                 ports::DnsProvider&) override {
    ports::IssuedCertificate c;
    c.certificate_pem =
        "-----BEGIN CERTIFICATE-----\n(" + request.names.front() + ")\n-----END CERTIFICATE-----\n";
    c.private_key_pem = "-----BEGIN PRIVATE KEY-----\n(key)\n-----END PRIVATE KEY-----\n";
    c.serial_number = "01";
    c.not_before = clock_.now();
    c.expires_at = clock_.now() + std::chrono::days{90};
    return c;
  }
  domain::Status revoke(const domain::AcmeAccount&, const std::string&) override { return {}; }
  domain::Result<ports::AccountState> rolloverKey(const domain::AcmeAccount&) override {
    return domain::makeError(domain::ErrorCode::failed_precondition, "not offered");
  }

 private:
  const ports::Clock& clock_;
};

}  // namespace

int main() {
  adapters::memory::MemoryStore store;
  testing::FakeClock clock(
      std::chrono::time_point_cast<domain::Duration>(std::chrono::system_clock::now()));
  testing::SequentialIds ids(clock);
  testing::FakeMac auditKey("embedding team's audit key");
  testing::FakeSecretBox secrets;
  testing::InlineBackground background;
  testing::RecordingNotifierFake notifier;
  testing::InMemoryDns dns;
  OwnIssuer issuer(clock);

  services::UnitOfWork work(store.transactions(), store.projects());
  services::AccessControl access(store.memberships(), store.projects());
  services::AuditService audit(store.auditLog(), auditKey, ids, clock, store.rateLimits(), access);
  services::CertificateService certificates(
      {store.certificates(), store.jobs(), store.distributions(), store.license(), ids, clock,
       secrets, store.acmeAccounts(), store.zones()},
      work, access, audit);
  // The job runner with one handler: issuance and renewal (the other job types are not queued
  // here).
  services::IssuanceJobHandler issuance(
      {store.certificates(), store.acmeAccounts(), store.zones(), store.dnsCredentials(), dns,
       issuer, secrets, clock, background, notifier, store.jobs(), ids},
      domain::JobPolicy{});
  services::JobRunner worker(
      {store.jobs(), store.jobLogs(), clock, background, notifier, nullptr, {&issuance}},
      domain::JobPolicy{});

  domain::User owner;
  owner.id = ids.next();
  owner.username = "owner";
  owner.org_role = domain::OrgRole::owner;
  const services::Principal who{owner, "embedded"};
  const services::RequestContext ctx{"127.0.0.1", "embed-1"};

  domain::Project project;
  project.id = ids.next();
  project.name = "embedded";
  domain::AcmeAccount account;
  account.id = ids.next();
  account.project_id = project.id;
  account.name = "own CA";
  account.directory_url = "https://ca.internal/directory";
  if (!store.projects().create(project) || !store.acmeAccounts().create(account)) return 1;
  // The zone the names are served in (a certificate is refused for names no zone covers), with
  // the DNS credential the worker answers DNS-01 through (here the in-memory DNS).
  domain::DnsCredential credential;
  credential.id = ids.next();
  credential.project_id = project.id;
  credential.name = "internal DNS";
  credential.provider = "exec";
  domain::Zone zone;
  zone.id = ids.next();
  zone.project_id = project.id;
  zone.domain = "example.internal";
  zone.dns_credential_id = credential.id;
  if (!store.dnsCredentials().create(credential) || !store.zones().create(zone)) return 1;

  services::CertificateRequest request;
  request.common_name = "www.example.internal";
  auto queued = certificates.create(who, ctx, project.id, request);
  if (!queued) {
    std::fprintf(stderr, "create: %s\n", queued.error().message.c_str());
    return 1;
  }
  auto ran = worker.runOnce(domain::Lane::standard, "embed-worker");
  if (!ran || !*ran) return 1;
  auto stored = certificates.get(who, project.id, queued->certificate.id);
  if (!stored) return 1;
  std::printf("%s: %s, serial %s\n", stored->common_name.c_str(),
              std::string(domain::nameOf(stored->status)).c_str(), stored->serial_number.c_str());
  return stored->status == domain::CertificateStatus::active ? 0 : 1;
}
