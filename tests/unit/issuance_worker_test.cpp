// The issuance worker with a scripted CA on the memory store and the real clock: the heartbeat
// keeps a slow attempt's job from being taken, failures walk the job and certificate tables
// with the reason kept, and a cancel seen by the heartbeat stops a failing job from retrying.
#include <doctest/doctest.h>

#include <atomic>
#include <thread>

#include "adapters/crypto/aes_gcm_secret_box.hpp"
#include "adapters/crypto/system_clock.hpp"
#include "adapters/runtime/thread_background.hpp"
#include "adapters/store/memory/memory_store.hpp"
#include "domain/services/issuance_worker.hpp"
#include "support/sequential_ids.hpp"
#include "support/test_certificates.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace std::chrono_literals;

namespace {

class ScriptedCa : public ports::Issuer {
 public:
  std::chrono::milliseconds delay{0};
  std::optional<Error> failure;
  std::atomic<int> orders{0};

  Result<ports::AccountState> registerAccount(const AcmeAccount&) override {
    return ports::AccountState{"valid", "https://ca.test/acct/1", ""};
  }
  Result<ports::IssuedCertificate> issue(const ports::IssueRequest& r,
                                         ports::DnsProvider&) override {
    ++orders;
    std::this_thread::sleep_for(delay);
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
};

class NoDns : public ports::DnsProviderFactory {
 public:
  Result<ports::DnsProviderPtr> make(const DnsCredential&, const std::string&) override {
    return makeError(ErrorCode::failed_precondition, "not used by the scripted CA");
  }
};

struct Fixture {
  adapters::memory::MemoryStore store;
  adapters::crypto::SystemClock clock;
  testing::SequentialIds ids{clock};
  adapters::crypto::AesGcmSecretBox box{std::string(32, 'k')};
  ScriptedCa ca;
  NoDns dns;
  JobPolicy policy{2, 300ms, 200ms, 400ms, 100ms, 1s};
  adapters::runtime::ThreadBackground background;
  IssuanceWorker worker{{store.jobs(), store.jobLogs(), store.certificates(), store.acmeAccounts(),
                         store.zones(), store.dnsCredentials(), dns, ca, box, clock, background},
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
  Certificate storedCert() { return *store.certificates().get("p1", cert.id); }
};

}  // namespace

TEST_CASE("issuance worker: the heartbeat keeps a slow attempt's job from being taken") {
  Fixture fx;
  fx.ca.delay = 800ms;  // well past the 300 ms lock
  std::thread runner([&] { CHECK(*fx.worker.runOnce(Lane::standard, "worker-a")); });
  std::this_thread::sleep_for(500ms);
  auto other =
      fx.store.jobs().claim(Lane::standard, JobContext{fx.clock.now(), "worker-b", "", fx.policy});
  REQUIRE(other.ok());
  CHECK_FALSE(other->claimed.has_value());
  runner.join();
  CHECK(fx.storedJob().status == JobStatus::completed);
  CHECK(fx.ca.orders == 1);
  const auto cert = fx.storedCert();
  CHECK(cert.status == CertificateStatus::active);
  CHECK(cert.serial_number == "01");
  CHECK(cert.private_key_sealed.starts_with("v1:"));
  CHECK(cert.private_key_sealed.find("PRIVATE") == std::string::npos);
  CHECK(cert.next_renewal_at.has_value());
}

TEST_CASE("issuance worker: failures keep the reason, retry with backoff, then the job is dead") {
  Fixture fx;
  fx.ca.failure =
      makeError(ErrorCode::resource_exhausted, "CA refused: too many orders", "rateLimited");
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  CHECK(fx.storedJob().status == JobStatus::failed);
  CHECK(fx.storedCert().status == CertificateStatus::issuing);
  CHECK(fx.storedCert().last_error == "CA refused: too many orders");
  CHECK_FALSE(*fx.worker.runOnce(Lane::standard, "worker-a"));  // backing off (200 ms)
  std::this_thread::sleep_for(300ms);
  REQUIRE(*fx.worker.runOnce(Lane::standard, "worker-a"));
  const auto dead = fx.storedJob();
  CHECK(dead.status == JobStatus::dead);
  CHECK(dead.attempts == 2);
  CHECK(dead.error_msg == "CA refused: too many orders");
  const auto logs = fx.store.jobLogs().list(fx.job.id, PageRequest{1, 100});
  REQUIRE(logs.ok());
  bool sawDead = false;
  for (const auto& e : logs->items)
    sawDead = sawDead || e.message.find("no attempts left") != std::string::npos;
  CHECK(sawDead);
}

TEST_CASE("issuance worker: a cancel seen by the heartbeat stops a failing job from retrying") {
  Fixture fx;
  fx.ca.delay = 500ms;
  fx.ca.failure = makeError(ErrorCode::unavailable, "the CA cannot be reached");
  std::thread runner([&] { CHECK(*fx.worker.runOnce(Lane::standard, "worker-a")); });
  std::this_thread::sleep_for(50ms);
  REQUIRE(fx.store.jobs()
              .apply(fx.job.id, JobEvent::cancel, JobContext{fx.clock.now(), "", "", fx.policy})
              .ok());
  runner.join();
  CHECK(fx.storedJob().status == JobStatus::cancelled);
}
