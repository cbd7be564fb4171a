// A project's issuance settings in process, over the memory store: who reads and changes them and
// what is refused; the defaults a new certificate takes; certificates outside the policy refused
// at create and on change (nothing written); and, in the issuance worker, a renewal outside the
// policy stopped for good with policy.violation, accounts of providers the policy does not allow
// passed over, and what the CA issued judged by the longest lifetime and by SC-081.
#include <doctest/doctest.h>

#include <certsteward/adapters/store/codec/settings_documents.hpp>
#include "services/issuance_fixture.hpp"
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

struct PolicyFixture : testing::ServiceFixture {
  adapters::codec::CaProvidersDocument document{store.settings(), clock};
  ProjectService projectsWithProviders{
      {store.projects(), store.memberships(), store.users(), store.certificates(), ids, clock,
       store.acmeAccounts(), store.dnsCredentials(), store.zones(), store.credentials(),
       store.moduleConfigs(), store.notificationChannels(), store.notificationRules(), &document},
      work,
      access,
      audit};
  CertificateService certs{
      {store.certificates(), store.jobs(), store.distributions(), store.license(), ids, clock,
       secrets, store.acmeAccounts(), store.zones(), nullptr, nullptr, nullptr, true, &document,
       &store.projects()},
      work,
      access,
      audit};
  AcmeAccount le, zero;

  PolicyFixture() {
    project("p1");
    servedZone("p1", "example.com");
    License unlimited;
    unlimited.plan_name = "enterprise";
    unlimited.expires_at = clock.now() + std::chrono::days{365};
    REQUIRE(store.license().put(unlimited).ok());
    CaProviderList list;
    CaProvider a;
    a.id = "le";
    a.name = "Let's Encrypt";
    a.directory_url = "https://le.test/dir";
    a.profiles = {{"classic", ""}, {"tlsserver", ""}};
    CaProvider b;
    b.id = "zerossl";
    b.name = "ZeroSSL";
    b.directory_url = "https://zerossl.test/dir";
    list.providers = {a, b};
    REQUIRE(document.put(list).ok());
    le = account("le", a.directory_url);
    zero = account("zerossl", b.directory_url);
  }

  AcmeAccount account(const Id& provider, const std::string& url) {
    AcmeAccount a;
    a.id = ids.next();
    a.project_id = "p1";
    a.name = "account " + a.id;
    a.directory_url = url;
    a.ca_provider_id = provider;
    REQUIRE(store.acmeAccounts().create(a).ok());
    return a;
  }

  Result<ProjectIssuance> set(const std::function<void(ProjectIssuance&)>& change,
                              std::optional<Principal> who = std::nullopt) {
    ProjectIssuance issuance = *projectsWithProviders.issuance(owner(), "p1");
    change(issuance);
    return projectsWithProviders.setIssuance(who.value_or(owner()), ctx(), "p1", issuance);
  }

  CertificateRequest request(std::vector<std::string> names) {
    CertificateRequest r;
    r.common_name = names.front();
    r.sans = std::move(names);
    return r;
  }

  std::int64_t stored() { return *store.certificates().countAll(); }
};

}  // namespace

TEST_CASE("issuance settings: members read them, project admins change them, audited") {
  PolicyFixture fx;
  const auto viewer = fx.member("p1", ProjectRole::viewer);
  const auto operatorRole = fx.member("p1", ProjectRole::operator_);
  const auto admin = fx.member("p1", ProjectRole::admin);
  auto read = fx.projectsWithProviders.issuance(viewer, "p1");
  REQUIRE(read.ok());
  CHECK(*read == ProjectIssuance{});
  CHECK(fx.set([](ProjectIssuance& i) { i.policy.allow_wildcards = false; }, viewer).error().code ==
        ErrorCode::permission_denied);
  CHECK(fx.set([](ProjectIssuance& i) { i.policy.allow_wildcards = false; }, operatorRole)
            .error()
            .code == ErrorCode::permission_denied);
  CHECK(fx.audited("project.issuance_update").empty());
  auto changed = fx.set(
      [&](ProjectIssuance& i) {
        i.policy.allow_wildcards = false;
        i.defaults.acme_account_ids = {fx.le.id, fx.zero.id};
        i.defaults.profile = "tlsserver";
      },
      admin);
  REQUIRE_MESSAGE(changed.ok(), (changed.ok() ? "" : changed.error().message));
  CHECK_FALSE(changed->policy.allow_wildcards);
  CHECK(fx.projectsWithProviders.issuance(viewer, "p1")->defaults.profile == "tlsserver");
  CHECK(fx.audited("project.issuance_update").size() == 1);
  // Another project's caller sees nothing.
  fx.project("p2");
  const auto stranger = fx.member("p2", ProjectRole::admin);
  CHECK(fx.projectsWithProviders.issuance(stranger, "p1").error().code == ErrorCode::not_found);
}

TEST_CASE("issuance settings: what is refused names its field and changes nothing") {
  PolicyFixture fx;
  AcmeAccount elsewhere;
  elsewhere.id = "acct-p2";
  elsewhere.project_id = "p2";
  elsewhere.name = "other";
  elsewhere.directory_url = "https://le.test/dir";
  REQUIRE(fx.store.acmeAccounts().create(elsewhere).ok());
  const struct {
    const char* what;
    std::function<void(ProjectIssuance&)> change;
    const char* field;
  } rows[] = {
      {"an account of another project",
       [](ProjectIssuance& i) { i.defaults.acme_account_ids = {"acct-p2"}; },
       "defaults.acme_account_ids"},
      {"a profile without accounts", [](ProjectIssuance& i) { i.defaults.profile = "classic"; },
       "defaults.profile"},
      {"a profile the first CA does not offer",
       [&](ProjectIssuance& i) {
         i.defaults.acme_account_ids = {fx.zero.id, fx.le.id};
         i.defaults.profile = "classic";
       },
       "defaults.profile"},
      {"a provider that does not exist",
       [](ProjectIssuance& i) {
         i.policy.allowed_ca_provider_ids = {"le", "nope"};
       },
       "policy.allowed_ca_provider_ids"},
      {"a lifetime past ten years", [](ProjectIssuance& i) { i.policy.max_lifetime_days = 4000; },
       "policy.max_lifetime_days"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    auto refused = fx.set(row.change);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::invalid_argument);
    REQUIRE(refused.error().references.size() == 1);
    CHECK(refused.error().references[0] == row.field);
    CHECK(*fx.projectsWithProviders.issuance(fx.owner(), "p1") == ProjectIssuance{});
  }
  CHECK(fx.audited("project.issuance_update").empty());
}

TEST_CASE("issuance settings: a new certificate takes the defaults it leaves out") {
  PolicyFixture fx;
  REQUIRE(fx.set([&](ProjectIssuance& i) {
              i.defaults.acme_account_ids = {fx.le.id, fx.zero.id};
              i.defaults.profile = "tlsserver";
              i.defaults.preferred_chain = "ISRG Root X2";
            }).ok());
  auto plain = fx.certs.create(fx.owner(), fx.ctx(), "p1", fx.request({"a.example.com"}));
  REQUIRE(plain.ok());
  CHECK(plain->certificate.acme_account_ids == std::vector<Id>{fx.le.id, fx.zero.id});
  CHECK(plain->certificate.acme_account_id == fx.le.id);
  CHECK(plain->certificate.profile == "tlsserver");
  CHECK(plain->certificate.preferred_chain == "ISRG Root X2");
  // Its own accounts win; the default profile goes only to a first choice that offers it.
  auto own = fx.request({"b.example.com"});
  own.acme_account_ids = {fx.zero.id};
  auto made = fx.certs.create(fx.owner(), fx.ctx(), "p1", own);
  REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error().message));
  CHECK(made->certificate.acme_account_ids == std::vector<Id>{fx.zero.id});
  CHECK(made->certificate.profile.empty());
  // Its own profile wins.
  auto profiled = fx.request({"c.example.com"});
  profiled.profile = "classic";
  auto third = fx.certs.create(fx.owner(), fx.ctx(), "p1", profiled);
  REQUIRE(third.ok());
  CHECK(third->certificate.profile == "classic");
  // Renewal timing: a third of the lifetime unless a threshold is given; not both.
  CHECK(plain->certificate.renew_at_fraction == doctest::Approx(1.0 / 3));
  auto days = fx.request({"d.example.com"});
  days.renewal_threshold_days = 20;
  auto byDays = fx.certs.create(fx.owner(), fx.ctx(), "p1", days);
  REQUIRE(byDays.ok());
  CHECK(byDays->certificate.renew_at_fraction == 0);
  CHECK(byDays->certificate.renewal_threshold_days == 20);
  days.renew_at_fraction = 0.5;
  CHECK(fx.certs.create(fx.owner(), fx.ctx(), "p1", days).error().references ==
        std::vector<std::string>{"renew_at_fraction"});
}

TEST_CASE("issuance policy: a certificate outside it is refused at create, nothing written") {
  PolicyFixture fx;
  REQUIRE(fx.set([](ProjectIssuance& i) {
              i.policy.allowed_key_types = {KeyType::ecdsa_p256, KeyType::ecdsa_p384};
              i.policy.allowed_suffixes = {"example.com"};
              i.policy.allow_wildcards = false;
              i.policy.allow_ip_addresses = false;
              i.policy.allowed_ca_provider_ids = {"le"};
            }).ok());
  const struct {
    const char* what;
    std::function<void(CertificateRequest&)> change;
    std::vector<std::string> rules;  // empty: accepted
  } rows[] = {
      {"inside it", [&](CertificateRequest& r) { r.acme_account_ids = {fx.le.id}; }, {}},
      {"an RSA key",
       [&](CertificateRequest& r) {
         r.acme_account_ids = {fx.le.id};
         r.key_type = KeyType::rsa_2048;
       },
       {"allowed_key_types"}},
      {"a wildcard",
       [&](CertificateRequest& r) {
         r.acme_account_ids = {fx.le.id};
         r.sans.push_back("*.example.com");
       },
       {"allow_wildcards"}},
      {"an IP address over HTTP-01",
       [&](CertificateRequest& r) {
         r.acme_account_ids = {fx.le.id};
         r.common_name = "192.0.2.10";
         r.sans = {"192.0.2.10"};
         r.challenge = ChallengeType::http_01;
       },
       {"allow_ip_addresses"}},
      {"a failover CA the policy does not allow",
       [&](CertificateRequest& r) {
         r.acme_account_ids = {fx.le.id, fx.zero.id};
       },
       {"allowed_ca_provider_ids"}},
      {"no account: the project's first is judged (it is allowed)", [](CertificateRequest&) {}, {}},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    auto r = fx.request({"www.example.com"});
    row.change(r);
    const auto before = fx.stored();
    auto made = fx.certs.create(fx.owner(), fx.ctx(), "p1", r);
    if (row.rules.empty()) {
      REQUIRE_MESSAGE(made.ok(), (made.ok() ? "" : made.error().message));
      CHECK(fx.stored() == before + 1);
      continue;
    }
    REQUIRE_FALSE(made.ok());
    CHECK(made.error().reason == kPolicyViolation);
    std::vector<std::string> rules;
    for (const auto& v : made.error().references)
      rules.push_back(v.substr(0, v.find(':')));
    CHECK(rules == row.rules);
    CHECK(fx.stored() == before);
  }
}

TEST_CASE("certificate update: renewal timing, issuer preference, and the policy kept") {
  PolicyFixture fx;
  auto made = fx.certs.create(fx.owner(), fx.ctx(), "p1", fx.request({"www.example.com"}));
  REQUIRE(made.ok());
  const Id id = made->certificate.id;
  // Issued: a 90-day certificate.
  auto issued = *fx.store.certificates().get("p1", id);
  CertificateContext ctx{fx.clock.now(), "", fx.clock.now() + std::chrono::days{90}, {}, false, {}};
  REQUIRE(applyCertificateEvent(issued, CertificateEvent::issued, ctx).ok());
  issued.issued_at = fx.clock.now();
  REQUIRE(fx.store.certificates().update(issued).ok());
  const auto expires = *issued.expires_at;
  CHECK(std::chrono::abs(*issued.next_renewal_at - (expires - std::chrono::days{30})) <
        std::chrono::seconds{1});

  CertificateChanges days;
  days.renewal_threshold_days = 10;
  const auto viewer = fx.member("p1", ProjectRole::viewer);
  CHECK(fx.certs.update(viewer, fx.ctx(), "p1", id, days).error().code ==
        ErrorCode::permission_denied);
  const auto operatorRole = fx.member("p1", ProjectRole::operator_);
  auto changed = fx.certs.update(operatorRole, fx.ctx(), "p1", id, days);
  REQUIRE_MESSAGE(changed.ok(), (changed.ok() ? "" : changed.error().message));
  CHECK(changed->renew_at_fraction == 0);
  CHECK(changed->next_renewal_at == expires - std::chrono::days{10});
  CHECK(fx.audited("certificate.update").size() == 1);

  CertificateChanges half;
  half.renew_at_fraction = 0.5;
  changed = fx.certs.update(fx.owner(), fx.ctx(), "p1", id, half);
  REQUIRE(changed.ok());
  CHECK(std::chrono::abs(*changed->next_renewal_at - (expires - std::chrono::days{45})) <
        std::chrono::seconds{1});

  CertificateChanges preference;
  preference.acme_account_ids = std::vector<Id>{fx.zero.id, fx.le.id};
  changed = fx.certs.update(fx.owner(), fx.ctx(), "p1", id, preference);
  REQUIRE(changed.ok());
  CHECK(changed->acme_account_id == fx.zero.id);

  // Refused, nothing changed: an unknown account, a bad fraction, and a preference outside the
  // policy.
  const auto before = *fx.store.certificates().get("p1", id);
  CertificateChanges unknown;
  unknown.acme_account_ids = std::vector<Id>{"nope"};
  CHECK(fx.certs.update(fx.owner(), fx.ctx(), "p1", id, unknown).error().code ==
        ErrorCode::invalid_argument);
  CertificateChanges tooMuch;
  tooMuch.renew_at_fraction = 1.5;
  CHECK(fx.certs.update(fx.owner(), fx.ctx(), "p1", id, tooMuch).error().references ==
        std::vector<std::string>{"renew_at_fraction"});
  REQUIRE(fx.set([](ProjectIssuance& i) { i.policy.allowed_ca_provider_ids = {"le"}; }).ok());
  CertificateChanges outside;
  outside.acme_account_ids = std::vector<Id>{fx.zero.id};
  CHECK(fx.certs.update(fx.owner(), fx.ctx(), "p1", id, outside).error().reason ==
        kPolicyViolation);
  CHECK(fx.store.certificates().get("p1", id)->version == before.version);
  CHECK(fx.store.certificates().get("p1", id)->acme_account_ids ==
        std::vector<Id>{fx.zero.id, fx.le.id});
  // Already outside it (its preference names ZeroSSL): what does not touch the preference can
  // still change, and a preference inside it is taken.
  CertificateChanges off;
  off.auto_renew = false;
  REQUIRE(fx.certs.update(fx.owner(), fx.ctx(), "p1", id, off).ok());
  CertificateChanges inside;
  inside.acme_account_ids = std::vector<Id>{fx.le.id};
  REQUIRE(fx.certs.update(fx.owner(), fx.ctx(), "p1", id, inside).ok());
}

namespace {

// The issuance worker with the project's settings.
struct WorkerFixture : issuance_test::Fixture {
  adapters::codec::CaProvidersDocument document{store.settings(), clock};
  IssuanceJobHandler handler;
  std::vector<std::string> lines;

  static IssuanceJobHandler::Ports portsOf(WorkerFixture& f) {
    auto p = f.issuancePorts();
    p.providers = &f.document;
    p.projects = &f.store.projects();
    return p;
  }

  WorkerFixture() : handler(portsOf(*this), policy) {
    Project p;
    p.id = "p1";
    p.name = "p1";
    REQUIRE(store.projects().create(p).ok());
    addZone();
    ca.proveWithDns = false;
  }

  void setPolicy(const std::function<void(IssuancePolicy&)>& change) {
    auto p = *store.projects().get("p1");
    change(p.issuance.policy);
    REQUIRE(store.projects().update(p).ok());
  }

  Status run(const Job& j, AttemptNotes& notes) {
    StopSignal stop;
    return handler.attempt(
        j, stop, [this](LogLevel, const std::string& line) { lines.push_back(line); }, notes);
  }

  std::size_t events(EventKind kind) {
    auto page = store.events().list("p1", PageRequest{1, 100});
    REQUIRE(page.ok());
    return static_cast<std::size_t>(std::count_if(page->items.begin(), page->items.end(),
                                                  [&](const Event& e) { return e.kind == kind; }));
  }
};

}  // namespace

namespace {

// What the fake CA issues: material for the names, valid from `notBefore` to `notAfter`.
std::function<ports::IssuedCertificate(const std::vector<std::string>&)> validFrom(
    Timestamp notBefore, Timestamp notAfter) {
  return [=](const std::vector<std::string>& names) {
    const auto m = testing::makeTestMaterial(names.front());
    ports::IssuedCertificate c;
    c.certificate_pem = m.certificate_pem;
    c.chain_pem = m.chain_pem;
    c.private_key_pem = m.private_key_pem;
    c.not_before = notBefore;
    c.expires_at = notAfter;
    return c;
  };
}

}  // namespace

TEST_CASE("issuance policy: a renewal outside it is stopped for good, with policy.violation") {
  WorkerFixture fx;
  fx.awaitingRenewal();
  fx.setPolicy([](IssuancePolicy& p) { p.allowed_key_types = {KeyType::rsa_3072}; });
  Job renew = newJob(fx.ids.next(), "p1", JobType::renew_certificate, fx.clock.now(), fx.policy);
  renew.certificate_id = fx.cert.id;
  AttemptNotes notes;
  auto stopped = fx.run(renew, notes);
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.error().reason == kPolicyViolation);
  CHECK(notes.final_failure);
  CHECK(fx.ca.asked().empty());  // nothing was sent to the CA
  CHECK(fx.events(EventKind::policy_violation) == 1);
  // Through the job table: dead after one attempt.
  JobContext failure{fx.clock.now(), "w", stopped.error().message, fx.policy};
  failure.final_failure = notes.final_failure;
  Job claimed = renew;
  claimed.status = JobStatus::active;
  claimed.attempts = 1;
  claimed.locked_by = "w";
  REQUIRE(applyJobEvent(claimed, JobEvent::fail, failure).ok());
  CHECK(claimed.status == JobStatus::dead);
}

TEST_CASE("issuance policy: accounts of CA providers it does not allow are passed over") {
  WorkerFixture fx;
  CaProviderList list;
  for (const auto& [id, url] : {std::pair{"first", "https://first.test/dir"},
                                std::pair{"second", "https://second.test/dir"}}) {
    CaProvider p;
    p.id = id;
    p.name = id;
    p.directory_url = url;
    list.providers.push_back(p);
  }
  REQUIRE(fx.document.put(list).ok());
  std::vector<Id> accounts;
  for (const auto& p : list.providers) {
    AcmeAccount a;
    a.id = fx.ids.next();
    a.project_id = "p1";
    a.name = p.id;
    a.directory_url = p.directory_url;
    a.ca_provider_id = p.id;
    REQUIRE(fx.store.acmeAccounts().create(a).ok());
    accounts.push_back(a.id);
  }
  auto c = fx.storedCert();
  c.acme_account_ids = accounts;
  c.acme_account_id = accounts.front();
  REQUIRE(fx.store.certificates().update(c).ok());
  fx.setPolicy([](IssuancePolicy& p) { p.allowed_ca_provider_ids = {"second"}; });
  AttemptNotes notes;
  REQUIRE(fx.run(fx.storedJob(), notes).ok());
  REQUIRE(fx.ca.asked().size() == 1);
  CHECK(fx.ca.asked().front().directory_url == "https://second.test/dir");
  CHECK(fx.storedCert().issued_by_provider_id == "second");
  CHECK(std::any_of(fx.lines.begin(), fx.lines.end(), [](const std::string& l) {
    return l.find("passed over: the project's policy does not allow") != std::string::npos;
  }));
  // None allowed: stopped.
  fx.setPolicy([](IssuancePolicy& p) { p.allowed_ca_provider_ids = {"nobody"}; });
  auto again = fx.queueAnother({"www.example.test"});
  auto other = *fx.store.certificates().get("p1", *again.certificate_id);
  other.acme_account_ids = accounts;
  other.acme_account_id = accounts.front();
  REQUIRE(fx.store.certificates().update(other).ok());
  AttemptNotes stoppedNotes;
  auto stopped = fx.run(again, stoppedNotes);
  REQUIRE_FALSE(stopped.ok());
  CHECK(stopped.error().reason == kPolicyViolation);
  CHECK(stoppedNotes.final_failure);
}

TEST_CASE("issuance policy: what the CA issued is judged by max_lifetime_days and by SC-081") {
  WorkerFixture fx;
  fx.setPolicy([](IssuancePolicy& p) { p.max_lifetime_days = 90; });
  // Valid from now until 2100: longer than both.
  fx.ca.material = validFrom(fx.clock.now(), fromUnixSeconds(4102444800));
  AttemptNotes notes;
  REQUIRE(fx.run(fx.storedJob(), notes).ok());
  CHECK(fx.storedCert().status == CertificateStatus::active);  // issued and kept
  CHECK(fx.events(EventKind::policy_violation) == 1);
  CHECK(fx.events(EventKind::policy_lifetime_exceeds_schedule) == 1);
  // A 90-day certificate breaks neither.
  fx.ca.material = validFrom(fx.clock.now(), fx.clock.now() + std::chrono::days{90});
  auto again = fx.queueAnother({"api.example.test"});
  REQUIRE(fx.run(again, notes).ok());
  CHECK(fx.events(EventKind::policy_violation) == 1);
  CHECK(fx.events(EventKind::policy_lifetime_exceeds_schedule) == 1);
  // Renewal timing from what it carries: its threshold of 30 days before the 90-day expiry.
  const auto second = *fx.store.certificates().get("p1", *again.certificate_id);
  CHECK(std::chrono::abs(*second.next_renewal_at - (*second.expires_at - std::chrono::days{30})) <
        std::chrono::seconds{1});
}
