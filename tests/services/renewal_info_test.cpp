// ACME Renewal Information asked again (RFC 9773), over the memory store and the fake CA: an
// issuance from a CA that offers it schedules the question; the scheduler queues one
// check_renewal_info job per certificate due; the job moves the renewal into a window that moved
// earlier, leaves it for a later one, schedules the next question by the CA's Retry-After, and
// never holds a renewal back when the CA cannot be asked.
#include <doctest/doctest.h>

#include <certsteward/services/renewal_info_job_handler.hpp>
#include <certsteward/services/scheduler.hpp>
#include "services/issuance_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using namespace std::chrono_literals;

namespace {

struct AriFixture : issuance_test::Fixture {
  RenewalInfoJobHandler asker{{store.certificates(), store.acmeAccounts(), ca, clock},
                              [] { return 0.5; }};
  std::vector<std::string> lines;

  // The fixture's certificate issued (a 90-day certificate, renewal planned 30 days before its
  // end) with its question due now.
  Certificate issuedAndDue() {
    auto c = storedCert();
    CertificateContext ctx{clock.now(), "", clock.now() + std::chrono::days{90}, {}, false, {}};
    REQUIRE(applyCertificateEvent(c, CertificateEvent::issued, ctx).ok());
    c.certificate_pem = "-----BEGIN CERTIFICATE-----\nissued\n-----END CERTIFICATE-----\n";
    c.acme_account_id = store.acmeAccounts().list("p1", PageRequest{1, 1})->items.front().id;
    c.issued_by_account_id = *c.acme_account_id;
    c.ari_poll_at = clock.now() - 1min;
    REQUIRE(store.certificates().update(c).ok());
    REQUIRE(
        store.jobs().apply(job.id, JobEvent::cancel, JobContext{clock.now(), "", "", policy}).ok());
    return storedCert();
  }

  Job question() {
    Job j = newJob(ids.next(), "p1", JobType::check_renewal_info, clock.now(), policy);
    j.certificate_id = cert.id;
    return j;
  }

  Status ask() {
    StopSignal stop;
    AttemptNotes notes;
    return asker.attempt(
        question(), stop, [this](LogLevel, const std::string& line) { lines.push_back(line); },
        notes);
  }

  bool saidSomething(const std::string& text) const {
    return std::any_of(lines.begin(), lines.end(),
                       [&](const std::string& l) { return l.find(text) != std::string::npos; });
  }
};

Duration near(Timestamp a, Timestamp b) {
  return std::chrono::abs(a - b);
}

}  // namespace

TEST_CASE("renewal info: a window moved earlier moves the renewal into it") {
  AriFixture fx;
  const auto before = fx.issuedAndDue();
  const auto now = fx.clock.now();
  fx.ca.renewalWindow =
      ports::RenewalInfo{now + std::chrono::days{2}, now + std::chrono::days{4},
                         "https://ca.test/incident", now + std::chrono::hours{12}};
  REQUIRE(fx.ask().ok());
  const auto after = fx.storedCert();
  CHECK(before.next_renewal_at > now + std::chrono::days{50});
  CHECK(near(*after.next_renewal_at, now + std::chrono::days{3}) < 1min);  // half way through
  CHECK(near(*after.ari_poll_at, now + std::chrono::hours{12} - std::chrono::minutes{36}) < 1min);
  CHECK(after.status == CertificateStatus::active);
  CHECK(fx.saidSomething("moves to"));
  CHECK(fx.saidSomething("https://ca.test/incident"));
  REQUIRE(fx.ca.renewalInfoAsked.size() == 1);
  CHECK(fx.ca.renewalInfoAsked[0] == "https://ca.test/dir");
}

TEST_CASE("renewal info: an answer about a version renewed meanwhile is not used") {
  AriFixture fx;
  fx.issuedAndDue();
  const auto now = fx.clock.now();
  fx.ca.renewalWindow =
      ports::RenewalInfo{now - std::chrono::days{1}, now, "", now + std::chrono::hours{6}};
  Timestamp renewedRenewal{};
  fx.ca.whileAskingRenewalInfo = [&] {  // a renewal stores a new version while the CA answers
    auto c = fx.storedCert();
    c.certificate_pem = "-----BEGIN CERTIFICATE-----\nnew\n-----END CERTIFICATE-----\n";
    c.next_renewal_at = now + std::chrono::days{80};
    c.ari_poll_at = now + std::chrono::hours{6};
    renewedRenewal = *c.next_renewal_at;
    REQUIRE(fx.store.certificates().update(c).ok());
  };
  REQUIRE(fx.ask().ok());
  const auto after = fx.storedCert();
  CHECK(after.next_renewal_at == renewedRenewal);  // not moved to "now" by the old answer
  CHECK(after.ari_poll_at == now + std::chrono::hours{6});
  CHECK(fx.saidSomething("the answer is not used"));
}

TEST_CASE("renewal info: a later window leaves the renewal where it is") {
  AriFixture fx;
  const auto before = fx.issuedAndDue();
  const auto now = fx.clock.now();
  fx.ca.renewalWindow = ports::RenewalInfo{now + std::chrono::days{70}, now + std::chrono::days{72},
                                           "", std::nullopt};
  REQUIRE(fx.ask().ok());
  const auto after = fx.storedCert();
  CHECK(after.next_renewal_at == before.next_renewal_at);
  CHECK(near(*after.ari_poll_at, now + std::chrono::hours{6} - std::chrono::minutes{18}) < 1min);
  CHECK(fx.saidSomething("the renewal stays at its time"));
}

TEST_CASE("renewal info: a CA that cannot be asked never holds the renewal back") {
  AriFixture fx;
  const auto before = fx.issuedAndDue();
  const auto now = fx.clock.now();
  fx.ca.renewalWindow = makeError(ErrorCode::unavailable, "the CA at x: could not connect");
  REQUIRE(fx.ask().ok());  // the job is done: the question is rescheduled
  const auto after = fx.storedCert();
  CHECK(after.next_renewal_at == before.next_renewal_at);
  CHECK(near(*after.ari_poll_at, now + std::chrono::hours{6} - std::chrono::minutes{18}) < 1min);
  CHECK(fx.saidSomething("could not connect"));
}

TEST_CASE("renewal info: a certificate not waiting for its renewal is not asked") {
  AriFixture fx;
  auto c = fx.issuedAndDue();
  REQUIRE(applyCertificateEvent(c, CertificateEvent::manual_renew,
                                CertificateContext{fx.clock.now(), "", {}, {}, false, {}})
              .ok());
  REQUIRE(fx.store.certificates().update(c).ok());
  fx.ca.renewalWindow = ports::RenewalInfo{fx.clock.now(), fx.clock.now() + 1h, "", std::nullopt};
  REQUIRE(fx.ask().ok());
  CHECK(fx.ca.renewalInfoAsked.empty());
  CHECK_FALSE(fx.storedCert().ari_poll_at.has_value());  // asked again after its next issuance
}

TEST_CASE("renewal info: an issuance from a CA that offers it schedules the question") {
  AriFixture fx;
  IssuanceJobHandler handler{fx.issuancePorts(), fx.policy};
  StopSignal stop;
  AttemptNotes notes;
  const auto log = [](LogLevel, const std::string&) {};
  REQUIRE(handler.attempt(fx.storedJob(), stop, log, notes).ok());
  CHECK_FALSE(fx.storedCert().ari_poll_at.has_value());  // no window: the CA offers no ARI

  auto window = fx.ca.material;
  fx.ca.material = [window](const std::vector<std::string>& names) {
    auto c = window(names);
    c.suggested_renewal_at = c.expires_at - std::chrono::days{10};
    return c;
  };
  const auto again = fx.queueAnother({"www.example.test"});
  REQUIRE(handler.attempt(again, stop, log, notes).ok());
  const auto issued = *fx.store.certificates().get("p1", *again.certificate_id);
  REQUIRE(issued.ari_poll_at.has_value());
  CHECK(*issued.ari_poll_at > fx.clock.now() + 5h);
  CHECK(*issued.ari_poll_at <= fx.clock.now() + 6h);
}

TEST_CASE("renewal info: the sweep queues one question per certificate due, once") {
  AriFixture fx;
  fx.issuedAndDue();
  Scheduler scheduler({fx.store.leaderLock(), fx.store.certificates(), fx.store.jobs(), fx.ids,
                       fx.clock, fx.store.projects(), fx.store.settings()},
                      SchedulerOptions{});
  auto first = scheduler.sweep();
  REQUIRE(first.ok());
  CHECK(first->renewal_info == 1);
  auto second = scheduler.sweep();  // its job has not asked yet: not queued twice
  REQUIRE(second.ok());
  CHECK(second->renewal_info == 0);
  ports::JobFilter filter;
  filter.type = JobType::check_renewal_info;
  auto queued = fx.store.jobs().list("p1", filter, PageRequest{1, 10});
  REQUIRE(queued->items.size() == 1);
  CHECK(queued->items[0].certificate_id == fx.cert.id);
  CHECK(queued->items[0].lane() == Lane::standard);
}
