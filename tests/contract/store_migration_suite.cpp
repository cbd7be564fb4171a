// StoreMigration (`certsteward migrate`) between pairs of real store adapters: everything a store
// holds arrives in the other, counted again, with the audit chain unchanged and verifiable under
// the same key; a target that holds anything, or a store in use, is refused and left as it was.
// The main contract executable runs the SQLite and memory pairs; the MongoDB one SQLite to
// MongoDB and back.
#include <doctest/doctest.h>

#include <atomic>
#include <map>
#include <string>

#include <certsteward/adapters/store/codec/json_codec.hpp>
#include <certsteward/services/audit_sealer.hpp>
#include <certsteward/services/scheduler.hpp>
#include <certsteward/services/store_migration.hpp>
#include <certsteward/testing/failable_audit_log.hpp>
#include <certsteward/testing/fake_clock.hpp>
#include <certsteward/testing/fakes.hpp>
#include <certsteward/testing/sequential_ids.hpp>
#include "contract/store_factories.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

template <class From, class To>
struct Pair {
  using Source = From;
  using Target = To;
};

// Two stores, one clock and one id sequence.
template <class P>
struct MigrationFixture {
  typename P::Source fromFactory;
  typename P::Target toFactory;
  testing::FakeClock clock;
  testing::SequentialIds ids{clock};
  std::unique_ptr<ports::Store> from = fromFactory.make();
  std::unique_ptr<ports::Store> to = toFactory.make();
  testing::FakeMac mac{"the audit key"};
  AuditSealer sealer{mac};

  ~MigrationFixture() {
    fromFactory.cleanup(*from);
    toFactory.cleanup(*to);
  }
};

template <class T>
T scoped(const Id& project, const Id& id) {
  T e;
  e.id = id;
  e.project_id = project;
  return e;
}

constexpr int kCertificates = 105;   // more than one page of 100
constexpr int kLogLines = 130;       // more than one page of 100
constexpr int kAuditEntries = 1010;  // more than one chain page of 1000

// What the source holds, so that the test can count and compare.
struct Seeded {
  Id projectA, projectB, userAlice, certificate, doneJob, retriedJob, runningJob;
};

template <class F>
Seeded seed(F& f) {
  ports::Store& s = *f.from;
  Seeded d;
  for (const char* name : {"owner", "alice", "bob"}) {
    User u;
    u.id = f.ids.next();
    u.username = name;
    u.password_hash = std::string("$2b$10$hash-of-") + name;
    u.created_at = f.clock.now();
    REQUIRE(s.users().create(u).ok());
    if (std::string(name) == "alice") d.userAlice = u.id;
  }
  d.projectA = f.ids.next();
  d.projectB = f.ids.next();
  for (const auto& [id, name] : std::map<Id, std::string>{{d.projectA, "a"}, {d.projectB, "b"}}) {
    Project p;
    p.id = id;
    p.name = name;
    p.created_at = f.clock.now();
    REQUIRE(s.projects().create(p).ok());
  }
  REQUIRE(
      s.memberships().put({d.projectA, d.userAlice, ProjectRole::operator_, f.clock.now()}).ok());
  REQUIRE(s.memberships().put({d.projectB, d.userAlice, ProjectRole::viewer, f.clock.now()}).ok());

  for (const auto& project : {d.projectA, d.projectB}) {
    auto account = scoped<AcmeAccount>(project, f.ids.next());
    account.name = "le";
    account.key_sealed = "v1:sealed-key";
    REQUIRE(s.acmeAccounts().create(account).ok());
    auto dns = scoped<DnsCredential>(project, f.ids.next());
    dns.name = "bind";
    dns.provider = "rfc2136";
    REQUIRE(s.dnsCredentials().create(dns).ok());
    auto zone = scoped<Zone>(project, f.ids.next());
    zone.domain = "example.com";
    zone.dns_credential_id = dns.id;
    REQUIRE(s.zones().create(zone).ok());
    auto credential = scoped<Credential>(project, f.ids.next());
    credential.name = "deploy";
    credential.kind = "ssh_key";
    REQUIRE(s.credentials().create(credential).ok());
    auto module = scoped<ModuleConfig>(project, f.ids.next());
    module.name = "web";
    REQUIRE(s.moduleConfigs().create(module).ok());
    auto channel = scoped<NotificationChannel>(project, f.ids.next());
    channel.name = "ops";
    REQUIRE(s.notificationChannels().create(channel).ok());
    auto rule = scoped<NotificationRule>(project, f.ids.next());
    rule.name = "failures";
    REQUIRE(s.notificationRules().create(rule).ok());
    auto delivery = scoped<NotificationDelivery>(project, f.ids.next());
    delivery.channel_id = channel.id;
    delivery.rule_id = rule.id;
    REQUIRE(s.notificationDeliveries().create(delivery).ok());
    auto state = scoped<NotificationState>(project, f.ids.next());
    state.rule_id = rule.id;
    state.subject = "subject";
    REQUIRE(s.notificationStates().create(state).ok());
    auto distribution = scoped<Distribution>(project, f.ids.next());
    distribution.module_config_id = module.id;
    REQUIRE(s.distributions().create(distribution).ok());
  }
  for (int i = 0; i < kCertificates; ++i) {
    auto cert = scoped<Certificate>(d.projectA, f.ids.next());
    cert.common_name = "host" + std::to_string(i) + ".example.com";
    cert.status = i == 0 ? CertificateStatus::active : CertificateStatus::issuing;
    cert.created_at = f.clock.now();
    f.clock.advance(std::chrono::milliseconds(1));
    if (i == 0) {
      cert.serial_number = "0a:0b";
      d.certificate = cert.id;
    }
    REQUIRE(s.certificates().create(cert).ok());
  }
  auto done = scoped<Job>(d.projectA, f.ids.next());
  done.status = JobStatus::completed;
  done.certificate_id = d.certificate;
  done.created_at = f.clock.now();
  d.doneJob = done.id;
  REQUIRE(s.jobs().enqueue(done).ok());
  // A renewal that went dead was retried (pending again, the older id) after a newer one with
  // the same key had completed: one unfinished job per key, but not in id order.
  auto retried = scoped<Job>(d.projectA, f.ids.next());
  retried.type = JobType::renew_certificate;
  retried.idempotency_key = "renew:" + d.certificate;
  retried.attempts = 3;
  retried.next_run_at = f.clock.now() + std::chrono::minutes(5);
  auto newer = scoped<Job>(d.projectA, f.ids.next());
  newer.type = JobType::renew_certificate;
  newer.idempotency_key = retried.idempotency_key;
  newer.status = JobStatus::completed;
  retried.status = JobStatus::dead;
  REQUIRE(s.jobs().enqueue(retried).ok());
  REQUIRE(s.jobs().enqueue(newer).ok());
  JobContext retryNow;
  retryNow.now = f.clock.now();
  REQUIRE(s.jobs().apply(retried.id, JobEvent::retry, retryNow).ok());
  d.retriedJob = retried.id;
  // A job a worker held when the instances were stopped: active, with its lock.
  auto running = scoped<Job>(d.projectA, f.ids.next());
  running.type = JobType::issue_certificate;
  running.status = JobStatus::active;
  running.locked_by = "worker-1";
  running.lock_expires_at = f.clock.now() + std::chrono::seconds(30);
  running.attempts = 1;
  running.created_at = f.clock.now();
  d.runningJob = running.id;
  REQUIRE(s.jobs().enqueue(running).ok());
  auto other = scoped<Job>(d.projectB, f.ids.next());
  other.status = JobStatus::dead;
  other.error_msg = "the CA refused";
  REQUIRE(s.jobs().enqueue(other).ok());
  for (int i = 0; i < kLogLines; ++i) {
    f.clock.advance(std::chrono::milliseconds(1));
    REQUIRE(s.jobLogs()
                .append({done.id, f.clock.now(), LogLevel::info, "line " + std::to_string(i)})
                .ok());
  }
  REQUIRE(s.jobLogs().append({other.id, f.clock.now(), LogLevel::error, "refused"}).ok());
  for (const auto& project : {d.projectA, d.projectB}) {
    Event e;
    e.id = f.ids.next();
    e.project_id = project;
    e.kind = EventKind::job_failed;
    e.message = "a job failed";
    e.at = f.clock.now();
    REQUIRE(s.events().record(e).ok());
  }
  License license;
  license.plan_name = "team";
  license.license_key = "KEY-1";
  REQUIRE(s.license().put(license).ok());
  REQUIRE(s.settings().put({"ldap", R"({"host":"ldap.internal"})", f.clock.now()}).ok());
  REQUIRE(s.settings().put({"oidc", R"({"issuer":"https://sso.internal"})", f.clock.now()}).ok());
  REQUIRE(s.settings().put({Scheduler::kExpiryCheckDay, "2026-11-24", f.clock.now()}).ok());
  for (int i = 0; i < kAuditEntries; ++i) {
    AuditEntry entry;
    entry.id = f.ids.next();
    entry.timestamp = f.clock.now();
    entry.action = i % 2 == 0 ? "project.update" : "certificate.create";
    entry.resource_type = "project";
    entry.resource_id = d.projectA;
    entry.project_id = d.projectA;
    entry.actor_user_id = d.userAlice;
    entry.actor_username = "alice";
    entry.details = "entry " + std::to_string(i);
    REQUIRE(s.auditLog().append(entry, f.sealer).ok());
  }
  return d;
}

std::int64_t countOf(const MigrationReport& report, const std::string& kind) {
  for (const auto& k : report.kinds) {
    if (k.kind == kind) {
      CHECK_MESSAGE(k.source == k.target, kind);
      return k.target;
    }
  }
  FAIL("no count for " << kind);
  return -1;
}

// The whole chain of `store`, checked with `sealer` page by page.
AuditVerification verifyChain(ports::Store& store, const AuditSealer& sealer) {
  AuditVerification total;
  std::optional<Timestamp> since;
  for (int pages = 0; pages < 100; ++pages) {
    auto page = store.auditLog().chainPage(since, 1000);
    REQUIRE(page.ok());
    auto result =
        verifyAuditPage(sealer, page->predecessor_checksum, page->entries, page->next_since);
    total.verified += result.verified;
    total.intact = total.intact && result.intact;
    if (!result.next_since) break;
    since = result.next_since;
  }
  return total;
}

// A store whose audit log refuses appends while `failing` is set: a target lost part-way.
class FailingAuditStore : public ports::Store {
 public:
  explicit FailingAuditStore(ports::Store& inner) : inner_(inner), audit_(inner.auditLog()) {}
  std::atomic<bool>& failing() { return audit_.failing; }

  domain::Status ping() override { return inner_.ping(); }
  ports::CertificateRepository& certificates() override { return inner_.certificates(); }
  ports::JobQueue& jobs() override { return inner_.jobs(); }
  ports::JobLogRepository& jobLogs() override { return inner_.jobLogs(); }
  ports::ProjectRepository& projects() override { return inner_.projects(); }
  ports::UserRepository& users() override { return inner_.users(); }
  ports::MembershipRepository& memberships() override { return inner_.memberships(); }
  ports::AcmeAccountRepository& acmeAccounts() override { return inner_.acmeAccounts(); }
  ports::DnsCredentialRepository& dnsCredentials() override { return inner_.dnsCredentials(); }
  ports::ZoneRepository& zones() override { return inner_.zones(); }
  ports::CredentialRepository& credentials() override { return inner_.credentials(); }
  ports::ModuleConfigRepository& moduleConfigs() override { return inner_.moduleConfigs(); }
  ports::DistributionRepository& distributions() override { return inner_.distributions(); }
  ports::NotificationChannelRepository& notificationChannels() override {
    return inner_.notificationChannels();
  }
  ports::NotificationRuleRepository& notificationRules() override {
    return inner_.notificationRules();
  }
  ports::NotificationDeliveryRepository& notificationDeliveries() override {
    return inner_.notificationDeliveries();
  }
  ports::NotificationStateRepository& notificationStates() override {
    return inner_.notificationStates();
  }
  ports::AuditLog& auditLog() override { return audit_; }
  ports::EventLog& events() override { return inner_.events(); }
  ports::LicenseRepository& license() override { return inner_.license(); }
  ports::RefreshTokenStore& refreshTokens() override { return inner_.refreshTokens(); }
  ports::IdempotencyStore& idempotency() override { return inner_.idempotency(); }
  ports::ChallengeTokens& challengeTokens() override { return inner_.challengeTokens(); }
  ports::RateLimitCounter& rateLimits() override { return inner_.rateLimits(); }
  ports::LeaderLock& leaderLock() override { return inner_.leaderLock(); }
  ports::CaActivityLog& caActivity() override { return inner_.caActivity(); }
  ports::SettingsRepository& settings() override { return inner_.settings(); }
  ports::Transactions& transactions() override { return inner_.transactions(); }

 private:
  ports::Store& inner_;
  testing::FailableAuditLog audit_;
};

}  // namespace

#if defined(CERTSTEWARD_CONTRACT_MONGO)
#define CERTSTEWARD_MIGRATION_PAIRS                              \
  Pair<testing::SqliteStoreFactory, testing::MongoStoreFactory>, \
      Pair<testing::MongoStoreFactory, testing::SqliteStoreFactory>
#elif defined(CERTSTEWARD_CONTRACT_POSTGRES)
#define CERTSTEWARD_MIGRATION_PAIRS                                 \
  Pair<testing::SqliteStoreFactory, testing::PostgresStoreFactory>, \
      Pair<testing::PostgresStoreFactory, testing::SqliteStoreFactory>
#else
#define CERTSTEWARD_MIGRATION_PAIRS                                   \
  Pair<testing::SqliteStoreFactory, testing::SqliteStoreFactory>,     \
      Pair<testing::MemoryStoreFactory, testing::SqliteStoreFactory>, \
      Pair<testing::SqliteStoreFactory, testing::MemoryStoreFactory>
#endif

TEST_CASE_TEMPLATE("migrate: everything arrives, counted again, with the audit chain unchanged", P,
                   CERTSTEWARD_MIGRATION_PAIRS) {
  MigrationFixture<P> f;
  const auto d = seed(f);
  auto sourceHead = f.from->auditLog().head();
  REQUIRE(sourceHead.ok());

  std::vector<std::string> heard;
  auto report = StoreMigration(*f.from, *f.to, f.clock).run([&](const std::string& line) {
    heard.push_back(line);
  });
  REQUIRE(report.ok());
  REQUIRE_MESSAGE(!report->stopped, (report->stopped ? report->stopped->message : ""));
  CHECK(report->complete);
  CHECK(countOf(*report, "users") == 3);
  CHECK(countOf(*report, "projects") == 2);
  CHECK(countOf(*report, "org_documents") == 4);
  CHECK(countOf(*report, "memberships") == 2);
  for (const char* kind :
       {"acme_accounts", "dns_credentials", "zones", "credentials", "module_configs",
        "distributions", "notification_channels", "notification_rules", "notification_deliveries",
        "notification_states", "events"}) {
    CHECK_MESSAGE(countOf(*report, kind) == 2, kind);
  }
  CHECK(countOf(*report, "certificates") == kCertificates);
  CHECK(countOf(*report, "jobs") == 5);
  CHECK(countOf(*report, "job_logs") == kLogLines + 1);
  CHECK(heard.size() == report->kinds.size());
  CHECK(report->audit_entries == kAuditEntries);
  REQUIRE(report->audit_head.has_value());
  CHECK(report->audit_head->sequence == (*sourceHead)->sequence);
  CHECK(report->audit_head->checksum == (*sourceHead)->checksum);

  // The chain verifies under the same key, and not under another.
  const auto verified = verifyChain(*f.to, f.sealer);
  CHECK(verified.intact);
  CHECK(verified.verified == kAuditEntries);
  testing::FakeMac otherKey("another key");
  CHECK_FALSE(verifyChain(*f.to, AuditSealer(otherKey)).intact);

  // The data itself, not only its counts.
  auto alice = f.to->users().get(d.userAlice);
  REQUIRE(alice.ok());
  CHECK(alice->username == "alice");
  CHECK(alice->password_hash == "$2b$10$hash-of-alice");
  auto member = f.to->memberships().get(d.projectA, d.userAlice);
  REQUIRE(member.ok());
  CHECK(member->role == ProjectRole::operator_);
  auto cert = f.to->certificates().get(d.projectA, d.certificate);
  REQUIRE(cert.ok());
  CHECK(cert->status == CertificateStatus::active);
  CHECK(cert->serial_number == "0a:0b");
  auto done = f.to->jobs().get(d.projectA, d.doneJob);
  REQUIRE(done.ok());
  CHECK(done->status == JobStatus::completed);
  // Every job, certificate and user exactly as it was: status, attempts, next run, lock, ...
  for (const auto& project : {d.projectA, d.projectB}) {
    auto jobs = f.from->jobs().list(project, ports::JobFilter{}, PageRequest{1, 100, 0});
    REQUIRE(jobs.ok());
    for (const auto& job : jobs->items) {
      auto copied = f.to->jobs().get(project, job.id);
      REQUIRE(copied.ok());
      CHECK(adapters::codec::encode(*copied) == adapters::codec::encode(job));
    }
  }
  auto retried = f.to->jobs().get(d.projectA, d.retriedJob);
  REQUIRE(retried.ok());
  CHECK(retried->status == JobStatus::pending);
  auto running = f.to->jobs().get(d.projectA, d.runningJob);
  REQUIRE(running.ok());
  CHECK(running->status == JobStatus::active);
  CHECK(running->locked_by == "worker-1");
  REQUIRE(running->lock_expires_at.has_value());
  auto certs =
      f.from->certificates().list(d.projectA, ports::CertificateFilter{}, PageRequest{1, 100, 0});
  REQUIRE(certs.ok());
  for (const auto& c : certs->items) {
    auto copied = f.to->certificates().get(d.projectA, c.id);
    REQUIRE(copied.ok());
    CHECK(adapters::codec::encode(*copied) == adapters::codec::encode(c));
  }
  auto sourceUserPage = f.from->users().list(PageRequest{1, 100, 0});
  REQUIRE(sourceUserPage.ok());
  for (const auto& u : sourceUserPage->items) {
    auto copied = f.to->users().get(u.id);
    REQUIRE(copied.ok());
    CHECK(adapters::codec::encode(*copied) == adapters::codec::encode(u));
  }
  // The migration's leases are given back.
  for (auto* store : {f.from.get(), f.to.get()}) {
    auto holder = store->leaderLock().holder(Scheduler::kLockName, f.clock.now());
    REQUIRE(holder.ok());
    CHECK_FALSE(holder->has_value());
  }
  auto lines = f.to->jobLogs().list(d.doneJob, PageRequest{2, 100, 0});
  REQUIRE(lines.ok());
  REQUIRE(lines->items.size() == kLogLines - 100);
  CHECK(lines->items.front().message == "line 100");
  CHECK(lines->items.back().message == "line " + std::to_string(kLogLines - 1));
  auto license = f.to->license().get();
  REQUIRE(license.ok());
  REQUIRE(license->has_value());
  CHECK((*license)->license_key == "KEY-1");
  auto ldap = f.to->settings().get("ldap");
  REQUIRE(ldap.ok());
  REQUIRE(ldap->has_value());
  CHECK((*ldap)->value == R"({"host":"ldap.internal"})");
  auto checked = f.to->settings().get(Scheduler::kExpiryCheckDay);
  REQUIRE(checked.ok());
  REQUIRE(checked->has_value());
  CHECK((*checked)->value == "2026-11-24");

  // The source is as it was.
  auto sourceUsers = f.from->users().count();
  REQUIRE(sourceUsers.ok());
  CHECK(*sourceUsers == 3);

  // A second run into the now full target is refused and adds nothing.
  auto again = StoreMigration(*f.from, *f.to, f.clock).run();
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().code == ErrorCode::failed_precondition);
  CHECK(again.error().message.find("not empty") != std::string::npos);
  auto targetUsers = f.to->users().count();
  REQUIRE(targetUsers.ok());
  CHECK(*targetUsers == 3);
}

TEST_CASE_TEMPLATE("migrate: refused while an instance holds a store's scheduler lease", P,
                   CERTSTEWARD_MIGRATION_PAIRS) {
  MigrationFixture<P> f;
  User u;
  u.id = f.ids.next();
  u.username = "owner";
  REQUIRE(f.from->users().create(u).ok());
  for (auto* held : {f.from.get(), f.to.get()}) {
    CAPTURE(held == f.from.get());
    REQUIRE(
        held->leaderLock()
            .tryAcquire(Scheduler::kLockName, "instance-1", f.clock.now(), std::chrono::seconds(30))
            .ok());
    auto refused = StoreMigration(*f.from, *f.to, f.clock).run();
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("in use") != std::string::npos);
    auto targetUsers = f.to->users().count();
    REQUIRE(targetUsers.ok());
    CHECK(*targetUsers == 0);
    REQUIRE(held->leaderLock().release(Scheduler::kLockName, "instance-1").ok());
  }
  // An expired lease (an instance that died) does not hold it up.
  REQUIRE(f.from->leaderLock()
              .tryAcquire(Scheduler::kLockName, "crashed", f.clock.now(), std::chrono::seconds(30))
              .ok());
  f.clock.advance(std::chrono::seconds(31));
  auto report = StoreMigration(*f.from, *f.to, f.clock).run();
  REQUIRE(report.ok());
  CHECK(report->complete);
  CHECK(countOf(*report, "users") == 1);
  CHECK_FALSE(report->audit_head.has_value());
}

TEST_CASE_TEMPLATE("migrate: a target that holds anything is refused", P,
                   CERTSTEWARD_MIGRATION_PAIRS) {
  // Each of the things a fresh store might hold alone.
  const std::vector<std::pair<std::string, std::function<void(MigrationFixture<P>&)>>> holdings{
      {"a user",
       [](auto& f) {
         User u;
         u.id = f.ids.next();
         u.username = "someone";
         REQUIRE(f.to->users().create(u).ok());
       }},
      {"a project",
       [](auto& f) {
         Project p;
         p.id = f.ids.next();
         p.name = "p";
         REQUIRE(f.to->projects().create(p).ok());
       }},
      {"an audit entry",
       [](auto& f) {
         AuditEntry e;
         e.id = f.ids.next();
         e.timestamp = f.clock.now();
         e.action = "auth.login";
         e.resource_type = "user";
         REQUIRE(f.to->auditLog().append(e, f.sealer).ok());
       }},
      {"a licence",
       [](auto& f) {
         License l;
         l.license_key = "K";
         REQUIRE(f.to->license().put(l).ok());
       }},
      {"a certificate",
       [](auto& f) {
         auto cert = scoped<Certificate>("p", f.ids.next());
         cert.common_name = "a.example.com";
         REQUIRE(f.to->certificates().create(cert).ok());
       }},
      {"a job",
       [](auto& f) { REQUIRE(f.to->jobs().enqueue(scoped<Job>("p", f.ids.next())).ok()); }},
      {"a setting", [](auto& f) {
         REQUIRE(f.to->settings().put({"ldap", "{}", f.clock.now()}).ok());
       }}};
  for (const auto& [what, put] : holdings) {
    CAPTURE(what);
    MigrationFixture<P> f;
    User u;
    u.id = f.ids.next();
    u.username = "owner";
    REQUIRE(f.from->users().create(u).ok());
    put(f);
    auto refused = StoreMigration(*f.from, *f.to, f.clock).run();
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::failed_precondition);
    auto owner = f.to->users().getByUsername("owner");
    CHECK_FALSE(owner.ok());
  }
}

TEST_CASE_TEMPLATE("migrate: an empty source is refused, nothing written", P,
                   CERTSTEWARD_MIGRATION_PAIRS) {
  MigrationFixture<P> f;
  auto refused = StoreMigration(*f.from, *f.to, f.clock).run();
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::failed_precondition);
  CHECK(refused.error().message.find("source store is empty") != std::string::npos);
}

TEST_CASE_TEMPLATE("migrate: a copy that stops part-way says so, and the target is refused after",
                   P, CERTSTEWARD_MIGRATION_PAIRS) {
  MigrationFixture<P> f;
  seed(f);
  FailingAuditStore target(*f.to);
  target.failing() = true;  // everything but the audit log arrives
  auto report = StoreMigration(*f.from, target, f.clock).run();
  REQUIRE(report.ok());
  REQUIRE(report->stopped.has_value());
  CHECK(report->stopped->code == ErrorCode::unavailable);
  CHECK_FALSE(report->complete);
  CHECK(report->kinds.empty());
  // Part of the data is there, and the leases are given back.
  auto users = f.to->users().count();
  REQUIRE(users.ok());
  CHECK(*users == 3);
  for (auto* store : {f.from.get(), f.to.get()}) {
    auto holder = store->leaderLock().holder(Scheduler::kLockName, f.clock.now());
    REQUIRE(holder.ok());
    CHECK_FALSE(holder->has_value());
  }
  target.failing() = false;
  auto again = StoreMigration(*f.from, target, f.clock).run();
  REQUIRE_FALSE(again.ok());
  CHECK(again.error().message.find("not empty") != std::string::npos);
}
