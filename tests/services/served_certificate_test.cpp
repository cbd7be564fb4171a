// The server's own managed certificate (server.tls.certificate_id) over the memory store: found
// in whichever project holds it, refused until issued, read again only when its serial changes,
// its key opened for the listener.
#include <doctest/doctest.h>

#include <certsteward/services/served_certificate.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using certsteward::testing::ServiceFixture;

TEST_CASE("served certificate: found in its project, refused until issued, read when renewed") {
  ServiceFixture f;
  for (const char* p : {"p1", "p2", "p3"})
    f.project(p);
  domain::Certificate cert;
  cert.id = "c1";
  cert.project_id = "p3";
  cert.common_name = "console.example.com";
  cert.sans = {cert.common_name};
  REQUIRE(f.store.certificates().create(cert).ok());

  services::ServedCertificate served(f.store.projects(), f.store.certificates(), f.secrets, "c1");
  auto notIssued = served.changedSince("");
  REQUIRE_FALSE(notIssued.ok());
  CHECK(notIssued.error().code == domain::ErrorCode::failed_precondition);
  CHECK(notIssued.error().message.find("has not been issued yet") != std::string::npos);

  services::ServedCertificate missing(f.store.projects(), f.store.certificates(), f.secrets,
                                      "nope");
  auto none = missing.changedSince("");
  REQUIRE_FALSE(none.ok());
  CHECK(none.error().code == domain::ErrorCode::not_found);

  // Issued: the leaf and its chain, the key opened.
  auto stored = f.store.certificates().get("p3", "c1");
  REQUIRE(stored.ok());
  stored->status = domain::CertificateStatus::active;
  stored->serial_number = "00ab:cd";
  stored->certificate_pem = "LEAF";
  stored->chain_pem = "CHAIN\n";
  stored->private_key_sealed = *f.secrets.seal("KEY");
  REQUIRE(f.store.certificates().update(*stored).ok());
  auto first = served.changedSince("");
  REQUIRE(first.ok());
  REQUIRE(first->has_value());
  CHECK((*first)->chain_pem == "LEAF\nCHAIN\n");
  CHECK((*first)->key_pem == "KEY");
  // The serial served, however it is spelled: nothing to do.
  for (const char* same : {"ABCD", "abcd", "00ABCD", "ab:cd"}) {
    CAPTURE(same);
    auto unchanged = served.changedSince(same);
    REQUIRE(unchanged.ok());
    CHECK_FALSE(unchanged->has_value());
  }
  // Renewed: the new one.
  stored = f.store.certificates().get("p3", "c1");
  stored->serial_number = "ef01";
  stored->certificate_pem = "LEAF2\n";
  stored->private_key_sealed = *f.secrets.seal("KEY2");
  REQUIRE(f.store.certificates().update(*stored).ok());
  auto renewed = served.changedSince("ABCD");
  REQUIRE(renewed.ok());
  REQUIRE(renewed->has_value());
  CHECK((*renewed)->serial == "ef01");
  CHECK((*renewed)->chain_pem == "LEAF2\nCHAIN\n");
  CHECK((*renewed)->key_pem == "KEY2");

  // A key that cannot be opened: internal, and the message holds no sealed value.
  stored = f.store.certificates().get("p3", "c1");
  stored->serial_number = "ef02";
  stored->private_key_sealed = "not sealed";
  REQUIRE(f.store.certificates().update(*stored).ok());
  auto broken = served.changedSince("ABCD");
  REQUIRE_FALSE(broken.ok());
  CHECK(broken.error().code == domain::ErrorCode::internal);
  CHECK(broken.error().message.find("not sealed") == std::string::npos);

  // Deleted: not found (the listener keeps what it serves and says so in its log).
  REQUIRE(f.store.certificates().remove("p3", "c1").ok());
  auto gone = served.changedSince("ABCD");
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().code == domain::ErrorCode::not_found);
}
