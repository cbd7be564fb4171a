// The issuance worker's test fixture: a scripted CA, an in-memory DNS whose removals can be made
// to fail, and the worker over the memory store and the real clock, with one project, its ACME
// account and a certificate whose issue job is queued.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "adapters/crypto/aes_gcm_secret_box.hpp"
#include "adapters/crypto/system_clock.hpp"
#include "adapters/notify/recording_notifier.hpp"
#include "adapters/runtime/psl_public_suffixes.hpp"
#include "adapters/runtime/thread_background.hpp"
#include "adapters/store/memory/memory_store.hpp"
#include "domain/services/issuance_worker.hpp"
#include "support/test_certificates.hpp"
#include "testing/sequential_ids.hpp"

namespace certsteward::issuance_test {

using namespace certsteward::domain;
using namespace std::chrono_literals;

class ScriptedCa : public ports::Issuer {
 public:
  std::chrono::milliseconds delay{0};
  std::optional<Error> failure;
  std::atomic<int> orders{0};
  std::atomic<int> stopsSeen{0};
  bool useDns = false;  // publish and remove one challenge record per name, as ACME does
  // What the CA answers besides the result, reported as the ACME adapter does.
  std::optional<Duration> retryAfter;           // sent with a rateLimited failure
  std::vector<std::string> failingValidations;  // names whose authorization ends invalid

  Result<ports::AccountState> registerAccount(const AcmeAccount&) override {
    return ports::AccountState{"valid", "https://ca.test/acct/1", ""};
  }
  Result<ports::IssuedCertificate> issue(const ports::IssueRequest& r,
                                         ports::DnsProvider& dns) override {
    ++orders;
    if (useDns) {
      const ports::TxtRecord record{"", "_acme-challenge." + r.names.front() + ".",
                                    "token-" + std::to_string(orders.load()), 60};
      if (auto s = dns.present(record); !s) return s.error();
      auto visible = dns.waitVisible(record, 5s);
      (void)dns.cleanup(record);
      if (!visible)
        return visible.error();  // as the ACME adapter: a failed removal does not fail the order
    }
    // Waits `delay`, or less when the attempt is asked to stop (as the ACME adapter does).
    const auto until = std::chrono::steady_clock::now() + delay;
    while (std::chrono::steady_clock::now() < until) {
      if (r.stop != nullptr && r.stop->requested()) {
        ++stopsSeen;
        return makeError(ErrorCode::unavailable, "stopped before the order finished", "stopped");
      }
      std::this_thread::sleep_for(5ms);
    }
    if (r.report != nullptr) {
      r.report->orders_created = 1;
      r.report->failed_validations = failingValidations;
      if (failure && failure->reason == "rateLimited") {
        r.report->rate_limited = true;
        r.report->retry_after = retryAfter;
        r.report->rate_limit_detail = failure->message;
      }
    }
    if (failure) return *failure;
    const auto m = testing::makeTestMaterial(r.names.front());
    ports::IssuedCertificate c;
    c.certificate_pem = m.certificate_pem;
    c.chain_pem = m.chain_pem;
    c.private_key_pem = m.private_key_pem;
    c.serial_number = "0" + std::to_string(orders.load());
    c.expires_at = fromUnixSeconds(4102444800);  // 2100
    return c;
  }
  Status revoke(const AcmeAccount&, const std::string&) override { return {}; }
  Result<ports::AccountState> rolloverKey(const AcmeAccount&) override {
    return makeError(ErrorCode::failed_precondition, "not used by these tests");
  }
};

// A DNS server in memory whose removals fail while `failingCleanups` > 0.
struct FakeZoneData {
  std::mutex mu;
  std::multiset<std::string> records;  // "name value"
  int failingCleanups = 0;
  int cleanupCalls = 0;
  // waitVisible answers at once: visible from this instant on, "not visible" before it (as a
  // provider whose poll interval is longer than the time it was given).
  std::chrono::steady_clock::time_point visibleFrom{};
  std::atomic<int> waitCalls{0};
};

class FakeDnsProvider : public ports::DnsProvider {
 public:
  explicit FakeDnsProvider(FakeZoneData& data) : d_(data) {}
  Status present(const ports::TxtRecord& r) override {
    std::lock_guard lock(d_.mu);
    d_.records.insert(r.name + " " + r.value);
    return {};
  }
  Status cleanup(const ports::TxtRecord& r) override {
    std::lock_guard lock(d_.mu);
    ++d_.cleanupCalls;
    if (d_.failingCleanups > 0) {
      --d_.failingCleanups;
      return makeError(ErrorCode::unavailable, "the DNS server did not answer");
    }
    d_.records.erase(r.name + " " + r.value);
    return {};
  }
  Status waitVisible(const ports::TxtRecord& r, Duration) override {
    ++d_.waitCalls;
    if (std::chrono::steady_clock::now() >= d_.visibleFrom) return {};
    return makeError(ErrorCode::unavailable, "the TXT record " + r.name + " is not visible yet");
  }

 private:
  FakeZoneData& d_;
};

class FakeDns : public ports::DnsProviderFactory {
 public:
  FakeZoneData zone;
  Result<ports::DnsProviderPtr> make(const DnsCredential&, const std::string&) override {
    return ports::DnsProviderPtr(std::make_unique<FakeDnsProvider>(zone));
  }
};

struct Fixture {
  adapters::memory::MemoryStore store;
  adapters::crypto::SystemClock clock;
  testing::SequentialIds ids{clock};
  adapters::crypto::AesGcmSecretBox box{std::string(32, 'k')};
  ScriptedCa ca;
  FakeDns dns;
  JobPolicy policy{2, 300ms, 200ms, 400ms, 100ms, 1s};
  adapters::runtime::ThreadBackground background;
  adapters::notify::RecordingNotifier notifier{store.events(), ids, nullptr};
  adapters::runtime::PslPublicSuffixes suffixes;
  IssuanceWorker worker{{store.jobs(), store.jobLogs(), store.certificates(), store.acmeAccounts(),
                         store.zones(), store.dnsCredentials(), dns, ca, box, clock, background,
                         notifier, ids, nullptr, nullptr, nullptr, &store.caActivity(), &suffixes},
                        policy,
                        1s};
  Certificate cert;
  Job job;

  Fixture() {
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

}  // namespace certsteward::issuance_test
