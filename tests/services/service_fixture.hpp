// In-process service tests: the domain services over the memory store, a fake clock and
// sequential ids, wired as the app wires them — plus an audit log that can be made to fail, and
// that refuses an action the audit catalog does not list.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>
#include <certsteward/adapters/crypto/openssl_mac.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/certificate_service.hpp>
#include <certsteward/services/project_service.hpp>
#include <certsteward/services/unit_of_work.hpp>
#include <certsteward/testing/catalog_checked_audit_log.hpp>
#include <certsteward/testing/failable_audit_log.hpp>
#include <certsteward/testing/fake_clock.hpp>
#include <certsteward/testing/fake_dns_lookup.hpp>
#include <certsteward/testing/fakes.hpp>
#include <certsteward/testing/sequential_ids.hpp>

namespace certsteward::testing {

struct ServiceFixture {
  adapters::memory::MemoryStore store;
  FakeClock clock;
  SequentialIds ids{clock};
  adapters::crypto::OpenSslMac auditMac{"service-test audit key"};
  adapters::crypto::AesGcmSecretBox secrets{"service-test secrets key of 32+ chars"};
  CatalogCheckedAuditLog checkedAuditLog{store.auditLog()};  // every action recorded is listed
  FailableAuditLog auditLog{checkedAuditLog};
  services::UnitOfWork work{store.transactions(), store.projects()};
  services::AccessControl access{store.memberships(), store.projects()};
  services::AuditService audit{auditLog, auditMac, ids, clock, store.rateLimits(), access};
  services::ProjectService projects{
      {store.projects(), store.memberships(), store.users(), store.certificates(), ids, clock,
       store.acmeAccounts(), store.dnsCredentials(), store.zones(), store.credentials(),
       store.moduleConfigs(), store.notificationChannels(), store.notificationRules()},
      work,
      access,
      audit};
  testing::FakeKeyBundles bundles;
  testing::FakeDnsLookup lookup;  // the CNAMEs that delegate challenges (none unless a test adds)
  services::CertificateService certificates{
      {store.certificates(), store.jobs(), store.distributions(), store.license(), ids, clock,
       secrets, store.acmeAccounts(), store.zones(), &bundles, &lookup},
      work,
      access,
      audit};

  services::Principal owner() {
    domain::User u;
    u.id = "owner-1";
    u.username = "owner";
    u.org_role = domain::OrgRole::owner;
    return services::Principal{u, "session-1"};
  }
  services::RequestContext ctx() { return {"127.0.0.1", "req-1"}; }

  // A project stored as it is after POST /projects.
  void project(const domain::Id& id) {
    domain::Project p;
    p.id = id;
    p.name = "project " + id;
    REQUIRE(store.projects().create(p).ok());
  }
  // A zone of `projectId` for `domain`, with its DNS credential: certificates for names below it
  // can be created (a name no zone covers is refused). The zone's id.
  domain::Id servedZone(const domain::Id& projectId, const std::string& domain = "example.com") {
    domain::DnsCredential c;
    c.id = ids.next();
    c.project_id = projectId;
    c.name = "dns " + c.id;
    c.provider = "rfc2136";
    REQUIRE(store.dnsCredentials().create(c).ok());
    domain::Zone z;
    z.id = ids.next();
    z.project_id = projectId;
    z.domain = domain;
    z.dns_credential_id = c.id;
    REQUIRE(store.zones().create(z).ok());
    return z.id;
  }
  // A local user (org role viewer) stored with `passwordHash` from the test's own hasher.
  domain::User localUser(const std::string& name, const std::string& passwordHash) {
    domain::User u;
    u.id = ids.next();
    u.username = name;
    u.password_hash = passwordHash;
    REQUIRE(store.users().create(u).ok());
    return u;
  }
  // A new user with org role viewer and `role` in `projectId`.
  services::Principal member(const domain::Id& projectId, domain::ProjectRole role) {
    domain::User u;
    u.id = ids.next();
    u.username = "member-" + u.id;
    u.org_role = domain::OrgRole::viewer;
    REQUIRE(store.users().create(u).ok());
    REQUIRE(store.memberships().put(domain::Membership{projectId, u.id, role, clock.now()}).ok());
    return services::Principal{u, "s-" + u.id};
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
