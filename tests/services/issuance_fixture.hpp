// The issuance jobs' test fixture: the shared fake CA (material a TLS client can parse, no DNS
// proof unless a test asks for it), the shared in-memory DNS, and the issuance handler (counting
// CA quotas) with the DNS clean-up handler under a JobRunner over the memory store and the real
// clock, with one project, its ACME account and a certificate whose issue job is queued.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>
#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/runtime/psl_public_suffixes.hpp>
#include <certsteward/adapters/runtime/thread_background.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/services/dns_cleanup_job_handler.hpp>
#include <certsteward/services/issuance_job_handler.hpp>
#include <certsteward/services/job_runner.hpp>
#include <certsteward/services/notification_dispatcher.hpp>
#include <certsteward/testing/fakes.hpp>
#include <certsteward/testing/sequential_ids.hpp>
#include "support/test_certificates.hpp"

namespace certsteward::issuance_test {

using namespace certsteward::domain;

using namespace certsteward::services;
using namespace std::chrono_literals;

struct Fixture {
  adapters::memory::MemoryStore store;
  adapters::crypto::SystemClock clock;
  testing::SequentialIds ids{clock};
  adapters::crypto::AesGcmSecretBox box{std::string(32, 'k')};
  testing::FakeIssuer ca{clock};
  testing::InMemoryDns dns;
  JobPolicy policy{2, 300ms, 200ms, 400ms, 100ms, 1s};
  adapters::runtime::ThreadBackground background;
  // Events recorded as the server records them (no rules here: nothing is sent).
  NotificationDispatcher notifier{
      {store.events(), store.notificationRules(), store.notificationChannels(),
       store.notificationDeliveries(), store.notificationStates(), store.jobs(),
       store.transactions(), store.projects(), ids, clock},
      {}};
  adapters::runtime::PslPublicSuffixes suffixes;
  DnsCleanupJobHandler dnsCleanups{
      {store.zones(), store.dnsCredentials(), dns, box, clock, background}};
  CaActivityRecorder caActivity{{store.caActivity(), suffixes, ids, clock}};
  // The issuance handler's ports over this fixture, with the distributions
  // (distribution_pending after issuance) and the CA quotas when asked for.
  IssuanceJobHandler::Ports issuancePorts(ports::DistributionRepository* distributions = nullptr,
                                          bool quotas = false) {
    return {store.certificates(),
            store.acmeAccounts(),
            store.zones(),
            store.dnsCredentials(),
            dns,
            ca,
            box,
            clock,
            background,
            notifier,
            store.jobs(),
            ids,
            nullptr,
            distributions,
            quotas ? &caActivity : nullptr};
  }
  // A runner's ports over this fixture with `handlers`.
  JobRunner::Ports runnerPorts(std::vector<JobHandler*> handlers) {
    return {store.jobs(), store.jobLogs(),    clock, background, notifier,
            nullptr,      std::move(handlers)};
  }
  IssuanceJobHandler issuance{issuancePorts(nullptr, true), policy};
  JobRunner worker{runnerPorts({&issuance, &dnsCleanups}), policy};
  Certificate cert;
  Job job;

  Fixture() {
    ca.proveWithDns = false;
    ca.material = [](const std::vector<std::string>& names) {
      const auto m = testing::makeTestMaterial(names.front());
      ports::IssuedCertificate c;
      c.certificate_pem = m.certificate_pem;
      c.chain_pem = m.chain_pem;
      c.private_key_pem = m.private_key_pem;
      c.expires_at = fromUnixSeconds(4102444800);           // 2100
      c.not_before = c.expires_at - std::chrono::days{45};  // within SC-081 for 2099
      return c;
    };
    AcmeAccount account;
    account.id = ids.next();
    account.project_id = "p1";
    account.name = "ca";
    account.directory_url = "https://ca.test/dir";
    REQUIRE(store.acmeAccounts().create(account).ok());
    cert.id = ids.next();
    cert.project_id = "p1";
    cert.common_name = "www.example.test";
    cert.sans = {"www.example.test"};
    cert.created_at = cert.updated_at = clock.now();
    REQUIRE(store.certificates().create(cert).ok());
    job = newJob(ids.next(), "p1", JobType::issue_certificate, clock.now(), policy);
    job.certificate_id = cert.id;
    REQUIRE(store.jobs().enqueue(job).ok());
  }
  Job storedJob() { return *store.jobs().get("p1", job.id); }
  // The zone example.test through a DNS credential (served by the in-memory fake).
  void addZone() {
    DnsCredential credential;
    credential.id = ids.next();
    credential.project_id = "p1";
    credential.name = "fake";
    credential.provider = "rfc2136";
    REQUIRE(store.dnsCredentials().create(credential).ok());
    Zone zone;
    zone.id = ids.next();
    zone.project_id = "p1";
    zone.domain = "example.test";
    zone.dns_credential_id = credential.id;
    REQUIRE(store.zones().create(zone).ok());
  }
  Certificate storedCert() { return *store.certificates().get("p1", cert.id); }
  // The fixture's certificate issued, a renewal asked for, and the issuance job out of the way.
  Certificate awaitingRenewal() {
    auto issued = storedCert();
    REQUIRE(applyCertificateEvent(
                issued, CertificateEvent::issued,
                CertificateContext{clock.now(), "", fromUnixSeconds(4102444800), {}, false, {}})
                .ok());
    REQUIRE(applyCertificateEvent(issued, CertificateEvent::manual_renew,
                                  CertificateContext{clock.now(), "", {}, {}, false, {}})
                .ok());
    REQUIRE(store.certificates().update(issued).ok());
    REQUIRE(
        store.jobs().apply(job.id, JobEvent::cancel, JobContext{clock.now(), "", "", policy}).ok());
    return issued;
  }
  // A second certificate for `names` with its issue job queued; returns the job.
  Job queueAnother(std::vector<std::string> names) {
    Certificate other;
    other.id = ids.next();
    other.project_id = "p1";
    other.common_name = names.front();
    other.sans = names;
    other.created_at = other.updated_at = clock.now();
    REQUIRE(store.certificates().create(other).ok());
    Job j = newJob(ids.next(), "p1", JobType::issue_certificate, clock.now(), policy);
    j.certificate_id = other.id;
    REQUIRE(store.jobs().enqueue(j).ok());
    return j;
  }
  std::int64_t counted(const std::string& domain, CaActivityKind kind) {
    return *store.caActivity().count("https://ca.test/dir", domain, kind, clock.now() - 1h);
  }
  bool logged(const Id& jobId, const std::string& text) {
    const auto logs = store.jobLogs().list(jobId, PageRequest{1, 100});
    for (const auto& e : logs->items)
      if (e.message.find(text) != std::string::npos) return true;
    return false;
  }
};

inline bool logMentions(Fixture& fx, const std::string& text) {
  const auto logs = fx.store.jobLogs().list(fx.job.id, PageRequest{1, 100});
  REQUIRE(logs.ok());
  return std::any_of(logs->items.begin(), logs->items.end(), [&](const JobLogEntry& e) {
    return e.message.find(text) != std::string::npos;
  });
}

// Polls (bounded) until the job is held by a worker.
inline bool waitUntilActive(Fixture& fx) {
  for (int i = 0; i < 200; ++i) {
    if (fx.storedJob().status == JobStatus::active) return true;
    std::this_thread::sleep_for(10ms);
  }
  return false;
}

}  // namespace certsteward::issuance_test
