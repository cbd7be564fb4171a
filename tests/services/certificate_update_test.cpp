// The workers' compare-and-set on a stored certificate (services/certificate_update.hpp), over
// the memory store: what is written, what is not, and a concurrent update read again.
#include <doctest/doctest.h>

#include <certsteward/services/certificate_update.hpp>
#include "services/issuance_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

TEST_CASE("updateCertificate: writes a change, skips none, returns errors, reads again") {
  struct Case {
    const char* name;
    int concurrentWrites;  // updates made by "another worker" during the first applies
    bool change;           // apply changes the certificate (else: nothing to change)
    bool fail;             // apply returns an error
    std::optional<ErrorCode> error;
    bool written;
  };
  const Case cases[] = {
      {"a change is written", 0, true, false, std::nullopt, true},
      {"nothing to change: nothing written", 0, false, false, std::nullopt, false},
      {"apply's error is returned, nothing written", 0, true, true, ErrorCode::internal, false},
      {"a concurrent update: read again, both changes kept", 1, true, false, std::nullopt, true},
      {"four concurrent updates: the fifth try writes", 4, true, false, std::nullopt, true},
      {"always changing: unavailable after five tries", 5, true, false, ErrorCode::unavailable,
       false},
  };
  for (const auto& c : cases) {
    CAPTURE(c.name);
    issuance_test::Fixture f;
    const auto before = f.storedCert();
    int applies = 0;
    auto result = updateCertificate(
        f.store.certificates(), f.clock, "p1", before.id, [&](Certificate& cert) -> Result<bool> {
          if (applies++ < c.concurrentWrites) {  // another writer gets in first
            auto other = *f.store.certificates().get("p1", before.id);
            other.renewal_attempts += 1;
            REQUIRE(f.store.certificates().update(other).ok());
          }
          if (c.fail) return makeError(ErrorCode::internal, "cannot");
          if (!c.change) return false;
          cert.last_error = "changed";
          return true;
        });
    const auto after = f.storedCert();
    if (c.error) {
      REQUIRE_FALSE(result.ok());
      CHECK(result.error().code == *c.error);
    } else {
      REQUIRE(result.ok());
      CHECK(*result == c.written);
    }
    CHECK((after.last_error == "changed") == c.written);
    CHECK(after.renewal_attempts == before.renewal_attempts + c.concurrentWrites);
    CHECK(applies == std::min(c.concurrentWrites + 1, 5));
    if (c.written) CHECK(after.updated_at >= before.updated_at);
  }
}

TEST_CASE("updateCertificate: a certificate that is gone is not_found, and apply is not called") {
  issuance_test::Fixture f;
  bool called = false;
  auto result = updateCertificate(f.store.certificates(), f.clock, "p1", "no-such-certificate",
                                  [&](Certificate&) -> Result<bool> {
                                    called = true;
                                    return true;
                                  });
  REQUIRE_FALSE(result.ok());
  CHECK(result.error().code == ErrorCode::not_found);
  CHECK_FALSE(called);
}
