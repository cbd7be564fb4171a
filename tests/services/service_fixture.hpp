// In-process service tests: the domain services over the memory store, a fake clock and
// sequential ids, wired as the app wires them — plus an audit log that can be made to fail.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "adapters/crypto/aes_gcm_secret_box.hpp"
#include "adapters/crypto/openssl_mac.hpp"
#include "adapters/store/memory/memory_store.hpp"
#include "domain/services/access_control.hpp"
#include "domain/services/audit_service.hpp"
#include "domain/services/certificate_service.hpp"
#include "domain/services/project_service.hpp"
#include "domain/services/unit_of_work.hpp"
#include "testing/fake_clock.hpp"
#include "testing/sequential_ids.hpp"

namespace certsteward::testing {

// An AuditLog that passes through to another, or refuses every append while `failing` is set
// (a full disk, a lost database) — so a test can see what an action does without its audit.
class FailableAuditLog : public ports::AuditLog {
 public:
  explicit FailableAuditLog(ports::AuditLog& inner) : inner_(inner) {}
  std::atomic<bool> failing{false};

  domain::Result<domain::AuditEntry> append(const domain::AuditEntry& draft,
                                            const domain::AuditChainSealer& sealer) override {
    if (failing) {
      return domain::makeError(domain::ErrorCode::unavailable, "the audit log cannot be written");
    }
    return inner_.append(draft, sealer);
  }
  domain::Result<domain::AuditEntry> get(const domain::Id& id) const override {
    return inner_.get(id);
  }
  domain::Result<domain::Page<domain::AuditEntry>> list(
      const ports::AuditFilter& filter, const domain::PageRequest& page) const override {
    return inner_.list(filter, page);
  }
  domain::Result<ports::AuditChainPage> chainPage(std::optional<domain::Timestamp> since,
                                                  std::int64_t limit) const override {
    return inner_.chainPage(since, limit);
  }
  domain::Result<std::optional<domain::AuditEntry>> head() const override { return inner_.head(); }
  domain::Result<std::optional<domain::AuditEntry>> atSequence(
      std::int64_t sequence) const override {
    return inner_.atSequence(sequence);
  }

 private:
  ports::AuditLog& inner_;
};

struct ServiceFixture {
  adapters::memory::MemoryStore store;
  FakeClock clock;
  SequentialIds ids{clock};
  adapters::crypto::OpenSslMac auditMac{"service-test audit key"};
  adapters::crypto::AesGcmSecretBox secrets{"service-test secrets key of 32+ chars"};
  FailableAuditLog auditLog{store.auditLog()};
  domain::UnitOfWork work{store.transactions(), store.projects()};
  domain::AccessControl access{store.memberships(), store.projects()};
  domain::AuditService audit{auditLog, auditMac, ids, clock, store.rateLimits(), access};
  domain::ProjectService projects{
      {store.projects(), store.memberships(), store.users(), store.certificates(), ids, clock,
       store.acmeAccounts(), store.dnsCredentials(), store.zones(), store.credentials(),
       store.moduleConfigs(), store.notificationChannels(), store.notificationRules()},
      work,
      access,
      audit};
  domain::CertificateService certificates{
      {store.certificates(), store.jobs(), store.distributions(), store.license(), ids, clock,
       secrets, store.acmeAccounts()},
      work,
      access,
      audit};

  domain::Principal owner() {
    domain::User u;
    u.id = "owner-1";
    u.username = "owner";
    u.org_role = domain::OrgRole::owner;
    return domain::Principal{u, "session-1"};
  }
  domain::RequestContext ctx() { return {"127.0.0.1", "req-1"}; }

  // A project stored as it is after POST /projects.
  void project(const domain::Id& id) {
    domain::Project p;
    p.id = id;
    p.name = "project " + id;
    REQUIRE(store.projects().create(p).ok());
  }
  // A new user with org role viewer and `role` in `projectId`.
  domain::Principal member(const domain::Id& projectId, domain::ProjectRole role) {
    domain::User u;
    u.id = ids.next();
    u.username = "member-" + u.id;
    u.org_role = domain::OrgRole::viewer;
    REQUIRE(store.users().create(u).ok());
    REQUIRE(store.memberships().put(domain::Membership{projectId, u.id, role, clock.now()}).ok());
    return domain::Principal{u, "s-" + u.id};
  }
  // The audit entries with `action`, newest first.
  std::vector<domain::AuditEntry> audited(const std::string& action) {
    ports::AuditFilter filter;
    filter.action = action;
    auto page = store.auditLog().list(filter, domain::PageRequest{1, 100});
    REQUIRE(page.ok());
    return page->items;
  }
};

}  // namespace certsteward::testing
