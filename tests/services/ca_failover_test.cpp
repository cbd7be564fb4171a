// Failover between CAs in the issuance handler, over the memory store and the fake CA: which
// outcomes hand an order to the next CA at once, which count towards acme.failover_after_failures,
// what a failover leaves behind (job log, ca.failover event, audit entry, the certificate's
// failover state), how later orders stick to the CA that worked until failback_after, and what
// each order asks the CA (profile, preferred chain, replaces on renewals).
#include <doctest/doctest.h>

#include <certsteward/adapters/crypto/openssl_mac.hpp>
#include <certsteward/adapters/store/codec/settings_documents.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/testing/fake_dns_lookup.hpp>
#include "services/issuance_fixture.hpp"

using namespace certsteward;
using namespace certsteward::issuance_test;

namespace {

const std::string kFirst = "https://first.test/dir";
const std::string kSecond = "https://second.test/dir";

struct FailoverFixture : Fixture {
  adapters::crypto::OpenSslMac mac{"failover-test audit key"};
  AccessControl access{store.memberships(), store.projects()};
  AuditService audit{store.auditLog(), mac, ids, clock, store.rateLimits(), access};
  adapters::codec::CaProvidersDocument providers{store.settings(), clock};
  testing::FakeDnsLookup lookup;  // CAA before each order (none unless a test adds some)
  IssuanceJobHandler handler;
  AcmeAccount first, second;
  std::vector<std::string> lines;

  static IssuanceJobHandler::Ports portsOf(FailoverFixture& f) {
    auto p = f.issuancePorts(nullptr, true);
    p.providers = &f.providers;
    p.audit = &f.audit;
    p.lookup = &f.lookup;
    return p;
  }

  FailoverFixture() : handler(portsOf(*this), policy, CaFailoverPolicy{2, std::chrono::hours{1}}) {
    CaProviderList list;
    for (const auto& [id, url] : {std::pair{"prov-1", kFirst}, std::pair{"prov-2", kSecond}}) {
      CaProvider p;
      p.id = id;
      p.name = std::string("CA ") + id;
      p.directory_url = url;
      if (url == kFirst) p.profiles = {{"tlsserver", "45 days"}};
      p.caa_identities = {url == kFirst ? "first.test" : "second.test"};
      list.providers.push_back(p);
    }
    REQUIRE(providers.put(list).ok());
    first = account("first", kFirst, "prov-1");
    second = account("second", kSecond, "prov-2");
    auto c = storedCert();
    c.acme_account_ids = {first.id, second.id};
    c.acme_account_id = first.id;
    REQUIRE(store.certificates().update(c).ok());
  }

  AcmeAccount account(const std::string& name, const std::string& url, const std::string& prov) {
    AcmeAccount a;
    a.id = ids.next();
    a.project_id = "p1";
    a.name = name;
    a.directory_url = url;
    a.ca_provider_id = prov;
    REQUIRE(store.acmeAccounts().create(a).ok());
    return a;
  }

  Status run() {
    StopSignal stop;
    AttemptNotes notes;
    return handler.attempt(
        storedJob(), stop, [this](LogLevel, const std::string& line) { lines.push_back(line); },
        notes);
  }

  std::vector<std::string> askedDirectories() {
    std::vector<std::string> out;
    for (const auto& a : ca.asked())
      out.push_back(a.directory_url);
    return out;
  }

  // A rate limit the CA announced through `account` for example.test, holding for `until`.
  void hold(const AcmeAccount& account, Duration until) {
    CaActivity refusal;
    refusal.id = ids.next();
    refusal.directory_url = account.directory_url;
    refusal.registered_domain = "example.test";
    refusal.kind = CaActivityKind::rate_limited;
    refusal.at = clock.now();
    refusal.project_id = "p1";
    refusal.account_id = account.id;
    refusal.retry_until = clock.now() + until;
    refusal.detail = "too many certificates";
    REQUIRE(store.caActivity().record(refusal).ok());
  }

  std::size_t events(EventKind kind) {
    auto page = store.events().list("p1", PageRequest{1, 100});
    REQUIRE(page.ok());
    return static_cast<std::size_t>(std::count_if(page->items.begin(), page->items.end(),
                                                  [&](const Event& e) { return e.kind == kind; }));
  }

  std::size_t audited(const std::string& action) {
    auto page = store.auditLog().list({}, PageRequest{1, 100});
    REQUIRE(page.ok());
    return static_cast<std::size_t>(
        std::count_if(page->items.begin(), page->items.end(),
                      [&](const AuditEntry& e) { return e.action == action; }));
  }
};

}  // namespace

TEST_CASE(
    "ca failover: an unreachable, failing, rate-limiting or CAA-refused CA hands on at once") {
  struct Case {
    const char* what;
    Error error;
  };
  const Case cases[] = {
      {"no connection", makeError(ErrorCode::unavailable, "the CA at x: could not connect",
                                  std::string(ports::kCaUnreachable))},
      {"a 503 without a problem document",
       makeError(ErrorCode::unavailable, "CA refused the order: HTTP 503", "http_503")},
      {"serverInternal", makeError(ErrorCode::unavailable, "CA refused: oops", "serverInternal")},
      {"rateLimited", makeError(ErrorCode::resource_exhausted, "too many", "rateLimited")},
      {"CAA", makeError(ErrorCode::failed_precondition, "CAA forbids", "caa")},
  };
  for (const auto& c : cases) {
    CAPTURE(c.what);
    FailoverFixture fx;
    fx.ca.refusalsByDirectory[kFirst] = c.error;
    const auto done = fx.run();
    REQUIRE_MESSAGE(done.ok(), (done.ok() ? "" : done.error().message));
    CHECK(fx.askedDirectories() == std::vector<std::string>{kFirst, kSecond});
    const auto cert = fx.storedCert();
    CHECK(cert.status == CertificateStatus::active);
    CHECK(cert.issued_by_account_id == fx.second.id);
    CHECK(cert.issued_by_provider_id == "prov-2");
    CHECK(cert.failover_account_id == fx.second.id);
    CHECK(cert.failover_at.has_value());
    CHECK(fx.events(EventKind::ca_failover) == 1);
    CHECK(fx.audited("certificate.ca_failover") == 1);
    CHECK(std::any_of(fx.lines.begin(), fx.lines.end(), [](const std::string& l) {
      return l.starts_with("failing over from ACME account 'first'");
    }));
  }
}

TEST_CASE("ca failover: CAA that forbids the first CA sends the order to the second unasked") {
  FailoverFixture fx;
  // The names' zone allows only the second CA: the first is never sent the order.
  fx.lookup.caa("example.test", {{0, "issue", "second.test"}});
  const auto done = fx.run();
  REQUIRE_MESSAGE(done.ok(), (done.ok() ? "" : done.error().message));
  CHECK(fx.askedDirectories() == std::vector<std::string>{kSecond});
  CHECK(fx.storedCert().issued_by_provider_id == "prov-2");
  CHECK(fx.events(EventKind::ca_failover) == 1);
  CHECK(std::any_of(fx.lines.begin(), fx.lines.end(), [](const std::string& l) {
    return l.find("caa_refused: CAA forbids this CA for www.example.test: CAA at example.test") !=
           std::string::npos;
  }));
  // Climbed from the name to its parent, each asked once.
  CHECK(fx.lookup.caaAsked() == std::vector<std::string>{"www.example.test", "example.test"});

  // Forbidding both: the job's error names the record; nothing was ordered.
  FailoverFixture both;
  both.lookup.caa("www.example.test", {{0, "issue", "third.test"}});
  const auto refused = both.run();
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().reason == "caa");
  CHECK(refused.error().message.find("third.test") != std::string::npos);
  CHECK(both.askedDirectories().empty());

  // Resolvers that do not answer leave CAA to the CA: the first CA is asked.
  FailoverFixture unknown;
  unknown.lookup.failing(true);
  REQUIRE(unknown.run().ok());
  CHECK(unknown.askedDirectories() == std::vector<std::string>{kFirst});
}

TEST_CASE("ca failover: a disabled provider is passed over, and the last CA's error is the job's") {
  FailoverFixture fx;
  auto list = *fx.providers.get();
  list->providers[0].enabled = false;
  REQUIRE(fx.providers.put(*list).ok());
  fx.ca.refusalsByDirectory[kSecond] =
      makeError(ErrorCode::unavailable, "the CA at second: could not connect",
                std::string(ports::kCaUnreachable));
  const auto done = fx.run();
  REQUIRE_FALSE(done.ok());
  CHECK(done.error().message.find("second") != std::string::npos);
  CHECK(fx.askedDirectories() == std::vector<std::string>{kSecond});  // the first never asked
  CHECK(fx.events(EventKind::ca_failover) == 1);
}

TEST_CASE("ca failover: refusals count, and after the configured number the next CA leads") {
  FailoverFixture fx;
  fx.ca.refusalsByDirectory[kFirst] =
      makeError(ErrorCode::failed_precondition, "the CA could not validate", "unauthorized");
  REQUIRE_FALSE(fx.run().ok());  // one refusal: the job retries with the same CA
  CHECK(fx.askedDirectories() == std::vector<std::string>{kFirst});
  CHECK(fx.storedCert().ca_failures == 1);
  CHECK(fx.storedCert().failover_account_id.empty());
  REQUIRE_FALSE(fx.run().ok());  // two in a row (after_failures = 2): the next CA leads
  CHECK(fx.storedCert().failover_account_id == fx.second.id);
  CHECK(fx.storedCert().ca_failures == 0);
  CHECK(fx.events(EventKind::ca_failover) == 1);
  REQUIRE(fx.run().ok());
  CHECK(fx.askedDirectories() == std::vector<std::string>{kFirst, kFirst, kSecond});
  CHECK(fx.storedCert().issued_by_account_id == fx.second.id);
}

TEST_CASE("ca failover: orders stay with the CA that worked until failback_after, then go back") {
  FailoverFixture fx;
  auto cert = fx.storedCert();
  cert.failover_account_id = fx.second.id;
  cert.failover_at = fx.clock.now() - std::chrono::minutes{10};
  REQUIRE(fx.store.certificates().update(cert).ok());
  REQUIRE(fx.run().ok());
  CHECK(fx.askedDirectories() == std::vector<std::string>{kSecond});
  CHECK(fx.storedCert().failover_account_id == fx.second.id);

  // A renewal after failback_after (1 h here) tries the first choice again, and stays there.
  auto renewing = fx.storedCert();
  REQUIRE(applyCertificateEvent(renewing, CertificateEvent::manual_renew,
                                CertificateContext{fx.clock.now(), "", {}, {}, false, {}})
              .ok());
  renewing.failover_at = fx.clock.now() - std::chrono::hours{2};
  REQUIRE(fx.store.certificates().update(renewing).ok());
  auto job = newJob(fx.ids.next(), "p1", JobType::renew_certificate, fx.clock.now(), fx.policy);
  job.certificate_id = fx.cert.id;
  REQUIRE(fx.store.jobs().enqueue(job).ok());
  StopSignal stop;
  AttemptNotes notes;
  REQUIRE(fx.handler
              .attempt(
                  job, stop, [](LogLevel, const std::string&) {}, notes)
              .ok());
  auto asked = fx.ca.asked();
  REQUIRE(asked.size() == 2);
  CHECK(asked.back().directory_url == kFirst);
  // The certificate replaced came from the other CA: this one could not replace it.
  CHECK(asked.back().replaces_certificate_pem.empty());
  const auto after = fx.storedCert();
  CHECK(after.issued_by_account_id == fx.first.id);
  CHECK(after.failover_account_id.empty());
  CHECK_FALSE(after.failover_at.has_value());

  // The next renewal, from the CA that issued the certificate, names it (RFC 9773 replaces).
  auto again = fx.storedCert();
  REQUIRE(applyCertificateEvent(again, CertificateEvent::manual_renew,
                                CertificateContext{fx.clock.now(), "", {}, {}, false, {}})
              .ok());
  REQUIRE(fx.store.certificates().update(again).ok());
  auto next = newJob(fx.ids.next(), "p1", JobType::renew_certificate, fx.clock.now(), fx.policy);
  next.certificate_id = fx.cert.id;
  REQUIRE(fx.store.jobs().enqueue(next).ok());
  REQUIRE(fx.handler
              .attempt(
                  next, stop, [](LogLevel, const std::string&) {}, notes)
              .ok());
  asked = fx.ca.asked();
  REQUIRE(asked.size() == 3);
  CHECK(asked.back().directory_url == kFirst);
  CHECK(asked.back().replaces_certificate_pem == again.certificate_pem);
  CHECK_FALSE(again.certificate_pem.empty());
}

TEST_CASE("ca failover: each order asks for the certificate's profile and preferred chain") {
  FailoverFixture fx;
  auto cert = fx.storedCert();
  cert.profile = "tlsserver";
  cert.preferred_chain = "ISRG Root X1";
  REQUIRE(fx.store.certificates().update(cert).ok());
  fx.ca.refusalsByDirectory[kFirst] = makeError(ErrorCode::unavailable, "down", "http_502");
  REQUIRE(fx.run().ok());
  const auto asked = fx.ca.asked();
  REQUIRE(asked.size() == 2);
  CHECK(asked[0].profile == "tlsserver");
  // The second CA's directory lists no such profile: it is asked without one, and the log says so.
  CHECK(asked[1].profile.empty());
  CHECK(std::any_of(fx.lines.begin(), fx.lines.end(), [](const std::string& l) {
    return l.find("does not offer profile tlsserver") != std::string::npos;
  }));
  for (const auto& a : asked) {
    CHECK(a.preferred_chain == "ISRG Root X1");
    CHECK(a.replaces_certificate_pem.empty());  // a first issuance replaces nothing
  }
}

TEST_CASE("ca failover: accounts held by a rate limit are passed over without a switch") {
  FailoverFixture fx;
  fx.hold(fx.first, std::chrono::hours{1});
  REQUIRE(fx.run().ok());  // the first is held: the second orders
  CHECK(fx.askedDirectories() == std::vector<std::string>{kSecond});
  CHECK(fx.events(EventKind::ca_failover) == 1);

  // Both held: nothing is asked, nothing is written, no switch is reported, the job waits for
  // the first hold to end.
  FailoverFixture both;
  both.hold(both.first, std::chrono::hours{2});
  both.hold(both.second, std::chrono::hours{1});
  const auto before = both.storedCert();
  StopSignal stop;
  AttemptNotes notes;
  const auto held = both.handler.attempt(
      both.storedJob(), stop, [](LogLevel, const std::string&) {}, notes);
  REQUIRE_FALSE(held.ok());
  CHECK(held.error().code == ErrorCode::resource_exhausted);
  CHECK(notes.deferred);
  REQUIRE(notes.not_before.has_value());
  CHECK(*notes.not_before <= both.clock.now() + std::chrono::hours{1});
  CHECK(both.ca.asked().empty());
  CHECK(both.events(EventKind::ca_failover) == 0);
  CHECK(both.storedCert().version == before.version);
}

TEST_CASE("ca failover: one CA's Retry-After does not hold back the job another CA failed") {
  FailoverFixture fx;
  fx.ca.refusalsByDirectory[kFirst] =
      makeError(ErrorCode::resource_exhausted, "too many", "rateLimited");
  fx.ca.retryAfter = std::chrono::hours{5};
  fx.ca.refusalsByDirectory[kSecond] =
      makeError(ErrorCode::failed_precondition, "the CA could not validate", "unauthorized");
  StopSignal stop;
  AttemptNotes notes;
  const auto done = fx.handler.attempt(
      fx.storedJob(), stop, [](LogLevel, const std::string&) {}, notes);
  REQUIRE_FALSE(done.ok());
  CHECK(done.error().message.find("could not validate") != std::string::npos);
  CHECK_FALSE(notes.deferred);
  CHECK_FALSE(notes.not_before.has_value());
}

TEST_CASE("ca failover: a stopped order is not handed on") {
  FailoverFixture fx;
  fx.ca.refusalsByDirectory[kFirst] =
      makeError(ErrorCode::unavailable, "stopped before the order finished", "stopped");
  const auto done = fx.run();
  REQUIRE_FALSE(done.ok());
  CHECK(done.error().reason == "stopped");
  CHECK(fx.askedDirectories() == std::vector<std::string>{kFirst});
  CHECK(fx.events(EventKind::ca_failover) == 0);
}
