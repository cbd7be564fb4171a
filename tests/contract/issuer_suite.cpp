// The Issuer contract suite (testing/contract) against the shared fake CA (FakeIssuer proving
// through InMemoryDns) and against the ACME issuer with the real Pebble and bind9 of the
// integration tests (tests/integration/acme_fixture.hpp; each started once per test process).
#include <memory>
#include <sstream>

#include <certsteward/adapters/acme/acme_crypto.hpp>
#include <certsteward/testing/fake_clock.hpp>
#include <certsteward/testing/fakes.hpp>
#include "integration/acme_fixture.hpp"
#include "support/free_port.hpp"

namespace {

using namespace certsteward;

domain::DnsCredential rfc2136() {
  domain::DnsCredential c;
  c.provider = "rfc2136";
  return c;
}

struct FakeIssuerHarness {
  testing::FakeClock clock;
  testing::FakeIssuer ca{clock};
  testing::InMemoryDns zone;
  ports::DnsProviderPtr provider = std::move(*zone.make(rfc2136(), "secret"));
  bool available() { return true; }
  std::string reason() { return {}; }
  ports::Issuer& issuer() { return ca; }
  domain::AcmeAccount account() {
    domain::AcmeAccount a;
    a.id = "0123456789abcdef01234567";
    a.directory_url = "https://fake-ca.test/dir";
    return a;
  }
  std::string domain() { return "example.test"; }
  ports::DnsProvider& dns() { return *provider; }
  // Its placeholder PEM names them: "fake <name> <name>...".
  std::vector<std::string> namesIn(const ports::IssuedCertificate& c) {
    std::istringstream body(c.certificate_pem.substr(c.certificate_pem.find("\nfake ") + 6));
    std::string line;
    std::getline(body, line);
    std::istringstream words(line);
    std::vector<std::string> names;
    for (std::string name; words >> name;)
      names.push_back(name);
    return names;
  }
  void makeUnreachable() {
    ca.refusal =
        domain::makeError(domain::ErrorCode::unavailable, "the CA could not be reached (fake)");
  }
};

struct AcmeHarness {
  testing::PebbleServer& ca = testing::acme_world::pebble();
  adapters::acme::AcmeIssuer acme{testing::acme_world::box(), testing::acme_world::settings(ca)};
  testing::acme_world::ExampleZone zone{testing::acme_world::tsig()};
  std::string directory = ca.directoryUrl();
  bool available() { return true; }  // pebble() fails the case with the reason when it cannot run
  std::string reason() { return {}; }
  ports::Issuer& issuer() { return acme; }
  domain::AcmeAccount account() {
    auto a = testing::acme_world::account(ca, "contract@example.test");
    a.directory_url = directory;
    return a;
  }
  std::string domain() { return "example.test"; }
  ports::DnsProvider& dns() { return zone; }
  std::vector<std::string> namesIn(const ports::IssuedCertificate& c) {
    auto facts = adapters::acme::inspectCertificate(c.certificate_pem);
    REQUIRE(facts.ok());
    return facts->dns_names;
  }
  void makeUnreachable() {
    directory = "https://127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/dir";
  }
};

}  // namespace

#define CERTSTEWARD_ISSUER_HARNESSES FakeIssuerHarness, AcmeHarness
#include <certsteward/testing/contract/issuer_contract.hpp>
