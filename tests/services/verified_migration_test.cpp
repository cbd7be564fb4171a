// VerifiedMigration in process over two memory stores: a source whose chain verifies is copied
// and both chains check out (complete); a source whose chain does not verify with the audit key
// given is refused before anything is copied; a target that holds anything already is refused.
#include <doctest/doctest.h>

#include <certsteward/services/verified_migration.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

struct MigrationFixture : testing::ServiceFixture {
  adapters::memory::MemoryStore target;
  AccessControl targetAccess{target.memberships(), target.projects()};
  AuditService targetAudit{target.auditLog(),   auditMac,    ids, clock,
                           target.rateLimits(), targetAccess};
  std::vector<std::string> progress;
  bool targetOpened = false;

  MigrationFixture() {
    project("p1");
    for (int i = 0; i < 3; ++i) {
      REQUIRE(audit.record(nullptr, ctx(), "project.update", "project", std::to_string(i)).ok());
    }
  }
  Result<VerifiedMigrationReport> run(AuditService& sourceAudit) {
    return VerifiedMigration(
               {store, sourceAudit},
               [this]() -> Result<VerifiedMigration::Side> {
                 targetOpened = true;
                 return VerifiedMigration::Side{target, targetAudit};
               },
               clock)
        .run([this](const std::string& line) { progress.push_back(line); });
  }
};

}  // namespace

TEST_CASE("verified migration: copied, counted and both chains verified") {
  MigrationFixture fx;
  const auto report = fx.run(fx.audit);
  REQUIRE_MESSAGE(report.ok(), report.error().message);
  CHECK(report->verdict == VerifiedMigrationReport::Verdict::complete);
  CHECK(report->copy.audit_entries >= 3);
  CHECK(report->target.intact);
  CHECK(report->target.verified == report->copy.audit_entries);
  CHECK_FALSE(report->counts_differ);
  CHECK_FALSE(fx.progress.empty());
  CHECK(fx.target.projects().get("p1").ok());
}

TEST_CASE("verified migration: a source chain that does not verify with the key is not copied") {
  MigrationFixture fx;
  adapters::crypto::OpenSslMac otherKey{"another configuration's audit key"};
  AuditService wrongKey{fx.auditLog, otherKey, fx.ids, fx.clock, fx.store.rateLimits(), fx.access};
  const auto report = fx.run(wrongKey);
  REQUIRE(report.ok());
  CHECK(report->verdict == VerifiedMigrationReport::Verdict::source_chain_broken);
  CHECK(report->source_breaks > 0);
  CHECK(fx.progress.empty());
  CHECK_FALSE(fx.targetOpened);  // opening may create it: not for a source that does not verify
  CHECK(fx.target.projects().get("p1").error().code == ErrorCode::not_found);
}

TEST_CASE("verified migration: a target that holds anything is refused, nothing copied") {
  MigrationFixture fx;
  Project there;
  there.id = "elsewhere";
  there.name = "already here";
  REQUIRE(fx.target.projects().create(there).ok());
  const auto report = fx.run(fx.audit);
  REQUIRE_FALSE(report.ok());
  CHECK(report.error().message.ends_with("; nothing was copied"));
  CHECK(fx.target.projects().get("p1").error().code == ErrorCode::not_found);
}
