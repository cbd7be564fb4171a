// AuditService in process: checkpoints every kAuditCheckpointInterval entries, verify with both
// MACs and against a recorded head, and the head it reports.
#include <doctest/doctest.h>

#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

CertificateRequest request(std::string name) {
  CertificateRequest r;
  r.common_name = std::move(name);
  return r;
}

}  // namespace

TEST_CASE("audit service: a checkpoint entry names the head after every 1000th entry") {
  testing::ServiceFixture fx;
  const auto who = fx.owner();
  for (int i = 0; i < kAuditCheckpointInterval; ++i) {
    REQUIRE(fx.audit.record(&who, fx.ctx(), "auth.login", "user", who.user.id).ok());
  }
  const auto head = fx.audit.head(who);
  REQUIRE(head.ok());
  REQUIRE(head->has_value());
  CHECK((*head)->sequence == kAuditCheckpointInterval + 1);
  CHECK((*head)->action == "audit.checkpoint");
  const auto named = fx.store.auditLog().atSequence(kAuditCheckpointInterval);
  REQUIRE(named->has_value());
  CHECK((*head)->details == "head sequence=" + std::to_string(kAuditCheckpointInterval) +
                                " checksum=" + (*named)->checksum);
  const auto verified = fx.audit.verify(who, std::nullopt, 5000);
  REQUIRE(verified.ok());
  CHECK(verified->intact);
  CHECK(verified->verified == kAuditCheckpointInterval + 1);
}

TEST_CASE("audit service: verify against a recorded head reports a truncated tail") {
  testing::ServiceFixture fx;
  const auto who = fx.owner();
  for (int i = 0; i < 5; ++i)
    REQUIRE(fx.audit.record(&who, fx.ctx(), "project.create", "project", "p").ok());
  const auto head = *fx.audit.head(who);
  const AuditHead recorded{head->sequence, head->checksum};
  // Verify is limited to one call a minute per user.
  auto intact = fx.audit.verify(who, std::nullopt, 100, recorded);
  REQUIRE(intact.ok());
  CHECK(intact->intact);
  fx.clock.advance(std::chrono::minutes{2});
  auto wrong = fx.audit.verify(who, std::nullopt, 100, AuditHead{recorded.sequence + 3, "abc"});
  REQUIRE(wrong.ok());
  CHECK_FALSE(wrong->intact);
  REQUIRE(wrong->breaks.size() == 1);
  CHECK(wrong->breaks[0].reason == "head_missing");
}

TEST_CASE("audit service: the whole chain, past one page of 10000, offline and unlimited") {
  testing::ServiceFixture fx;
  const auto who = fx.owner();
  for (int i = 0; i < 10'050; ++i)
    REQUIRE(fx.audit.record(&who, fx.ctx(), "project.create", "project", "p").ok());
  const auto head = *fx.audit.head(who);
  auto whole = fx.audit.verifyWholeChain(AuditHead{head->sequence, head->checksum});
  REQUIRE(whole.ok());
  CHECK(whole->intact);
  CHECK(whole->verified == head->sequence);  // every entry, the checkpoints included
  CHECK(whole->verified > 10'050);
  // No per-user limit (an operator at the console), and a wrong head is a break.
  auto wrong = fx.audit.verifyWholeChain(AuditHead{head->sequence, "0000"});
  REQUIRE(wrong.ok());
  CHECK_FALSE(wrong->intact);
  REQUIRE(wrong->breaks.size() == 1);
  CHECK(wrong->breaks[0].reason == "head_mismatch");
}

TEST_CASE("audit service: an action whose audit entry cannot be written does not happen") {
  testing::ServiceFixture fx;
  const auto who = fx.owner();
  auto project = fx.projects.create(who, fx.ctx(), "audited", "");
  REQUIRE(project.ok());
  const Id zone = fx.servedZone(project->id, "example.test");
  fx.auditLog.failing = true;
  const auto refused =
      fx.certificates.create(who, fx.ctx(), project->id, request("a.example.test"));
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::unavailable);
  CHECK(*fx.store.certificates().countAll() == 0);  // no certificate ...
  CHECK(fx.store.jobs().list(project->id, {}, *makePageRequest(1, 10))->total == 0);  // no job
  // The project emptied again (its zone and DNS credential gone), so only the audit stops the
  // delete below.
  const auto credential = fx.store.zones().get(project->id, zone)->dns_credential_id;
  REQUIRE(fx.store.zones().remove(project->id, zone).ok());
  REQUIRE(fx.store.dnsCredentials().remove(project->id, credential).ok());
  CHECK_FALSE(fx.projects.create(who, fx.ctx(), "not audited", "").ok());
  CHECK(fx.store.projects().list(*makePageRequest(1, 10))->total == 1);
  CHECK(fx.projects.remove(who, fx.ctx(), project->id).error().code == ErrorCode::unavailable);
  CHECK(fx.store.projects().get(project->id).ok());  // still there
  fx.auditLog.failing = false;
  fx.servedZone(project->id, "example.test");
  const auto created =
      fx.certificates.create(who, fx.ctx(), project->id, request("a.example.test"));
  REQUIRE(created.ok());
  CHECK(created->job.certificate_id == std::optional<Id>(created->certificate.id));
}

TEST_CASE("audit service: a private key export is refused when its audit entry fails") {
  testing::ServiceFixture fx;
  const auto who = fx.owner();
  auto project = fx.projects.create(who, fx.ctx(), "keys", "");
  REQUIRE(project.ok());
  Certificate cert;
  cert.id = fx.ids.next();
  cert.project_id = project->id;
  cert.common_name = "k.example.test";
  cert.certificate_pem = "-----BEGIN CERTIFICATE-----\n...\n-----END CERTIFICATE-----\n";
  cert.private_key_sealed = *fx.secrets.seal("PRIVATE KEY MATERIAL");
  cert.status = CertificateStatus::active;
  REQUIRE(fx.store.certificates().create(cert).ok());
  fx.auditLog.failing = true;
  const MaterialRequest withKey{KeyExport::encrypted_pem, "a good password"};
  const auto refused = fx.certificates.material(who, fx.ctx(), project->id, cert.id, withKey);
  CHECK_FALSE(refused.ok());
  fx.auditLog.failing = false;
  const auto exported = fx.certificates.material(who, fx.ctx(), project->id, cert.id, withKey);
  REQUIRE(exported.ok());
  // Encrypted by the (fake) KeyBundles: it labels the 20 bytes of key it packed.
  CHECK(exported->encrypted_private_key_pem ==
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nfake(20)\n-----END ENCRYPTED PRIVATE KEY-----\n");
}
