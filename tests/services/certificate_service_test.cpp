// CertificateService in process: a create writes the certificate, its issue job and its audit
// entry together or nothing; bad names, another project's ACME account and the free plan's cap
// refuse it; renewal waits for an issued certificate; the private key leaves only to a project
// admin, audited; a certificate with distributions cannot be deleted.
#include <doctest/doctest.h>

#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

struct CertFixture : testing::ServiceFixture {
  CertFixture() {
    project("p1");
    project("p2");
    servedZone("p1");
    servedZone("p2");
  }
  CertificateRequest request(std::string name) {
    CertificateRequest r;
    r.common_name = std::move(name);
    return r;
  }
  std::int64_t stored() { return *store.certificates().countAll(); }
  // The certificate as a worker leaves it after issuance, with a sealed key.
  void markIssued(const Id& id) {
    auto cert = *store.certificates().get("p1", id);
    cert.certificate_pem = "-----BEGIN CERTIFICATE-----\nleaf\n-----END CERTIFICATE-----\n";
    cert.private_key_sealed = *secrets.seal("-----BEGIN PRIVATE KEY-----\nk\n");
    cert.serial_number = "01";
    REQUIRE(applyCertificateEvent(
                cert, CertificateEvent::issued,
                CertificateContext{
                    clock.now(), "", clock.now() + std::chrono::days{90}, std::nullopt, false, {}})
                .ok());
    REQUIRE(store.certificates().update(cert).ok());
  }
};

}  // namespace

TEST_CASE("certificates: a create is the certificate, its issue job and its audit entry") {
  CertFixture fx;
  auto created = fx.certificates.create(fx.owner(), fx.ctx(), "p1", fx.request("www.example.com"));
  REQUIRE(created.ok());
  CHECK(created->certificate.status == CertificateStatus::issuing);
  CHECK(created->certificate.sans == std::vector<std::string>{"www.example.com"});
  CHECK(created->job.type == JobType::issue_certificate);
  CHECK(created->job.certificate_id == created->certificate.id);
  CHECK(fx.store.jobs().get("p1", created->job.id).ok());
  const auto audited = fx.audited("certificate.create");
  REQUIRE(audited.size() == 1);
  CHECK(audited[0].resource_id == created->certificate.id);

  // Without its audit entry nothing is written.
  fx.auditLog.failing = true;
  auto refused = fx.certificates.create(fx.owner(), fx.ctx(), "p1", fx.request("b.example.com"));
  CHECK_FALSE(refused.ok());
  CHECK(fx.stored() == 1);
}

TEST_CASE(
    "certificates: a name no zone of the project covers is refused, naming it, and nothing is "
    "written") {
  CertFixture fx;
  auto request = fx.request("www.example.com");
  request.sans = {"www.example.com", "shop.example.org"};
  auto refused = fx.certificates.create(fx.owner(), fx.ctx(), "p1", request);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::invalid_argument);
  CHECK(refused.error().reason == "NAME_NOT_SERVED");
  CHECK(refused.error().message.find("shop.example.org") != std::string::npos);
  CHECK(refused.error().message.find("www.example.com") == std::string::npos);
  CHECK(fx.stored() == 0);
  CHECK(fx.audited("certificate.create").empty());
  // Its zone added, the same request is accepted; a wildcard is served by its parent's zone.
  fx.servedZone("p1", "example.org");
  CHECK(fx.certificates.create(fx.owner(), fx.ctx(), "p1", request).ok());
  auto wildcard = fx.request("*.example.net");
  CHECK(fx.certificates.create(fx.owner(), fx.ctx(), "p2", wildcard).error().reason ==
        "LICENSE_LIMIT");  // the free plan's cap comes first
}

TEST_CASE("certificates: bad requests are refused and leave nothing behind") {
  CertFixture fx;
  AcmeAccount foreign;
  foreign.id = fx.ids.next();
  foreign.project_id = "p2";
  foreign.name = "theirs";
  foreign.directory_url = "https://ca.example/dir";
  REQUIRE(fx.store.acmeAccounts().create(foreign).ok());
  const struct {
    const char* name;
    CertificateRequest request;
  } rows[] = {
      {"an empty name", fx.request("")},
      {"a name that is not DNS", fx.request("not a name")},
      {"an upper-case control character", fx.request("www.example.com\x1b")},
      {"another project's ACME account",
       [&] {
         auto r = fx.request("www.example.com");
         r.acme_account_id = foreign.id;
         return r;
       }()},
      {"a negative renewal threshold",
       [&] {
         auto r = fx.request("www.example.com");
         r.renewal_threshold_days = -1;
         return r;
       }()},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    auto refused = fx.certificates.create(fx.owner(), fx.ctx(), "p1", row.request);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::invalid_argument);
  }
  CHECK(fx.stored() == 0);
  CHECK(fx.store.jobs().list("p1", {}, {1, 10})->total == 0);
}

TEST_CASE("certificates: the free plan issues one certificate, renewals are not capped") {
  CertFixture fx;
  auto first = fx.certificates.create(fx.owner(), fx.ctx(), "p1", fx.request("a.example.com"));
  REQUIRE(first.ok());
  auto second = fx.certificates.create(fx.owner(), fx.ctx(), "p2", fx.request("b.example.com"));
  REQUIRE_FALSE(second.ok());
  CHECK(second.error().code == ErrorCode::resource_exhausted);
  CHECK(second.error().reason == "LICENSE_LIMIT");
  fx.markIssued(first->certificate.id);
  auto renewed = fx.certificates.renew(fx.owner(), fx.ctx(), "p1", first->certificate.id);
  REQUIRE(renewed.ok());
  CHECK(renewed->job.type == JobType::renew_certificate);
}

TEST_CASE("certificates: renewal and downloads wait for an issued certificate") {
  CertFixture fx;
  auto created = fx.certificates.create(fx.owner(), fx.ctx(), "p1", fx.request("a.example.com"));
  REQUIRE(created.ok());
  const Id id = created->certificate.id;
  CHECK(fx.certificates.renew(fx.owner(), fx.ctx(), "p1", id).error().code ==
        ErrorCode::failed_precondition);
  CHECK(fx.certificates.material(fx.owner(), fx.ctx(), "p1", id).error().code ==
        ErrorCode::failed_precondition);
  fx.markIssued(id);
  auto renewed = fx.certificates.renew(fx.owner(), fx.ctx(), "p1", id);
  REQUIRE(renewed.ok());
  // A second renewal while the first is queued is refused.
  CHECK(fx.certificates.renew(fx.owner(), fx.ctx(), "p1", id).error().code ==
        ErrorCode::failed_precondition);
}

TEST_CASE("certificates: the private key leaves only to a project admin, and is audited") {
  CertFixture fx;
  auto created = fx.certificates.create(fx.owner(), fx.ctx(), "p1", fx.request("a.example.com"));
  REQUIRE(created.ok());
  const Id id = created->certificate.id;
  fx.markIssued(id);
  const auto operatorUser = fx.member("p1", ProjectRole::operator_);
  auto publicPart = fx.certificates.material(operatorUser, fx.ctx(), "p1", id);
  REQUIRE(publicPart.ok());
  CHECK(publicPart->encrypted_private_key_pem.empty());
  CHECK(publicPart->pkcs12.empty());
  const MaterialRequest pem{KeyExport::encrypted_pem, "a good password"};
  CHECK(fx.certificates.material(operatorUser, fx.ctx(), "p1", id, pem).error().code ==
        ErrorCode::permission_denied);
  CHECK(fx.audited("certificate.private_key_export").empty());
  const auto admin = fx.member("p1", ProjectRole::admin);
  auto withKey = fx.certificates.material(admin, fx.ctx(), "p1", id, pem);
  REQUIRE(withKey.ok());
  // Encrypted (the fake labels the key it packed: "-----BEGIN PRIVATE KEY-----\nk\n").
  CHECK(withKey->encrypted_private_key_pem ==
        "-----BEGIN ENCRYPTED PRIVATE KEY-----\nfake(30)\n-----END ENCRYPTED PRIVATE KEY-----\n");
  CHECK(withKey->pkcs12.empty());
  auto p12 = fx.certificates.material(admin, fx.ctx(), "p1", id,
                                      MaterialRequest{KeyExport::pkcs12, "a good password"});
  REQUIRE(p12.ok());
  CHECK(p12->pkcs12.starts_with("fake-pkcs12:a.example.com:"));
  CHECK(p12->encrypted_private_key_pem.empty());
  CHECK(fx.audited("certificate.private_key_export").size() == 2);
  // An export whose audit entry cannot be written does not happen.
  fx.auditLog.failing = true;
  CHECK_FALSE(fx.certificates.material(admin, fx.ctx(), "p1", id, pem).ok());
}

TEST_CASE("certificates: a key export's password rule is checked before anything else") {
  CertFixture fx;
  const std::vector<std::pair<std::string, const char*>> rows{
      {"", "password (8 to 1024 characters) is required to export the private key"},
      {"short", "password (8 to 1024 characters) is required to export the private key"},
      {std::string(1025, 'x'),
       "password (8 to 1024 characters) is required to export the private key"},
      {"tab\tinside", "password must not contain control characters"},
      {std::string("nul\0inside", 11), "password must not contain control characters"},
      {"del\x7finside", "password must not contain control characters"},
  };
  for (const auto& [password, message] : rows) {
    CAPTURE(password.size());
    // Even for a certificate that does not exist: the request itself is wrong.
    const auto refused = fx.certificates.material(fx.owner(), fx.ctx(), "p1", "missing",
                                                  MaterialRequest{KeyExport::pkcs12, password});
    CHECK(refused.error().code == ErrorCode::invalid_argument);
    CHECK(refused.error().message == message);
  }
  CHECK(checkExportPassword("eight ch").ok());
  CHECK(checkExportPassword(std::string(1024, 'x')).ok());
}

TEST_CASE("certificates: one with distributions cannot be deleted") {
  CertFixture fx;
  auto created = fx.certificates.create(fx.owner(), fx.ctx(), "p1", fx.request("a.example.com"));
  REQUIRE(created.ok());
  Distribution d;
  d.id = fx.ids.next();
  d.project_id = "p1";
  d.certificate_id = created->certificate.id;
  d.module_config_id = "0123456789abcdef01234567";
  REQUIRE(fx.store.distributions().create(d).ok());
  auto blocked = fx.certificates.remove(fx.owner(), fx.ctx(), "p1", created->certificate.id);
  REQUIRE_FALSE(blocked.ok());
  CHECK(blocked.error().reason == "DEPENDENCY_CONFLICT");
  CHECK(fx.stored() == 1);
}

TEST_CASE(
    "certificates: a delete cancels its waiting and failed jobs and asks a running one to stop, "
    "all in its transaction") {
  CertFixture fx;
  auto created = fx.certificates.create(fx.owner(), fx.ctx(), "p1", fx.request("a.example.com"));
  REQUIRE(created.ok());
  const Id certId = created->certificate.id;
  const Id pendingId = created->job.id;
  // A failed renewal of the same certificate, a running one, and another certificate's job.
  const auto add = [&](JobType type, JobStatus status, const Id& cert) {
    Job j = newJob(fx.ids.next(), "p1", type, fx.clock.now(), {});
    j.certificate_id = cert;
    j.status = status;
    if (status == JobStatus::active) {
      j.locked_by = "worker-1";
      j.lock_expires_at = fx.clock.now() + std::chrono::minutes{5};
    }
    REQUIRE(fx.store.jobs().enqueue(j).ok());
    return j.id;
  };
  const Id failedId = add(JobType::renew_certificate, JobStatus::failed, certId);
  const Id runningId = add(JobType::renew_certificate, JobStatus::active, certId);
  const Id otherId = add(JobType::renew_certificate, JobStatus::pending, "another-certificate");

  // Without its audit entries nothing changes: the certificate and its jobs stay as they were.
  fx.auditLog.failing = true;
  CHECK_FALSE(fx.certificates.remove(fx.owner(), fx.ctx(), "p1", certId).ok());
  fx.auditLog.failing = false;
  CHECK(fx.store.certificates().get("p1", certId).ok());
  CHECK(fx.store.jobs().get("p1", pendingId)->status == JobStatus::pending);
  CHECK(fx.store.jobs().get("p1", failedId)->status == JobStatus::failed);

  REQUIRE(fx.certificates.remove(fx.owner(), fx.ctx(), "p1", certId).ok());
  CHECK(fx.store.jobs().get("p1", pendingId)->status == JobStatus::cancelled);
  CHECK(fx.store.jobs().get("p1", failedId)->status == JobStatus::cancelled);
  const auto running = *fx.store.jobs().get("p1", runningId);
  CHECK(running.status == JobStatus::active);
  CHECK(running.cancel_requested);
  CHECK(fx.store.jobs().get("p1", otherId)->status == JobStatus::pending);
  const auto cancels = fx.audited("job.cancel");
  CHECK(cancels.size() == 3);
  CHECK(fx.audited("certificate.delete").size() == 1);
}

TEST_CASE("certificates: the summary counts by status, expiry window and week") {
  CertFixture fx;
  const auto now = fx.clock.now();
  struct Row {
    const char* name;
    CertificateStatus status;
    std::optional<int> expiresInDays;  // from now; negative: already expired
    const char* project;
  };
  const Row rows[] = {
      {"expired.example.com", CertificateStatus::renewal_failed, -2, "p1"},
      {"soon.example.com", CertificateStatus::active, 3, "p1"},
      {"ten.example.com", CertificateStatus::active, 10, "p1"},
      {"twenty.example.com", CertificateStatus::renewal_pending, 20, "p1"},
      {"late.example.com", CertificateStatus::active, 120, "p1"},
      {"new.example.com", CertificateStatus::issuing, std::nullopt, "p1"},
      {"other.example.com", CertificateStatus::active, 3, "p2"},  // another project
  };
  int n = 0;
  for (const auto& row : rows) {
    Certificate c;
    c.id = "c" + std::to_string(++n);
    c.project_id = row.project;
    c.common_name = row.name;
    c.sans = {row.name};
    c.status = row.status;
    c.created_at = now;
    c.updated_at = now;
    if (row.expiresInDays) c.expires_at = now + std::chrono::days{*row.expiresInDays};
    REQUIRE(fx.store.certificates().create(c).ok());
  }

  const auto s = fx.certificates.summary(fx.member("p1", ProjectRole::viewer), "p1");
  REQUIRE(s.ok());
  CHECK(s->total == 6);
  CHECK(s->by_status.at(CertificateStatus::active) == 3);
  CHECK(s->by_status.at(CertificateStatus::issuing) == 1);
  CHECK(s->by_status.at(CertificateStatus::renewal_pending) == 1);
  CHECK(s->by_status.at(CertificateStatus::renewal_failed) == 1);
  CHECK(s->by_status.at(CertificateStatus::renewal_in_progress) == 0);  // every status, 0 too
  CHECK(s->expired == 1);
  CHECK(s->expiring_within ==
        std::vector<std::pair<int, std::int64_t>>{{7, 2}, {14, 3}, {30, 4}});  // expired included
  REQUIRE(s->expiring_by_week.size() == CertificateSummary::kWeeks);
  CHECK(s->expiring_by_week[0] == 1);  // 3 days
  CHECK(s->expiring_by_week[1] == 1);  // 10 days
  CHECK(s->expiring_by_week[2] == 1);  // 20 days
  std::int64_t outlook = 0;
  for (const auto w : s->expiring_by_week)
    outlook += w;
  CHECK(outlook == 3);  // neither the expired one nor the one in 120 days

  // Outside the project: as if it did not exist.
  const auto stranger = fx.certificates.summary(fx.member("p2", ProjectRole::admin), "p1");
  REQUIRE_FALSE(stranger.ok());
  CHECK(stranger.error().code == ErrorCode::not_found);
}
