// The application's wiring: every job type a running server can queue reaches a handler, and
// every kind the catalog describes is one this build drives (and the reverse).
#include <doctest/doctest.h>

#include <certsteward/app/application.hpp>

namespace certsteward {

namespace {

// The server on the memory store, with keys only for this test.
std::unique_ptr<app::Application> makeApplication() {
  app::Config config;
  config.store_url = "memory:";
  config.jwt_secret = config.secrets_key = config.audit_signing_key =
      "a key only for building the application in this test";
  auto created = app::Application::create(config);
  REQUIRE(created.ok());
  return std::move(*created);
}

}  // namespace

TEST_CASE("application: every job type has a handler but the AD CS renewal still to come") {
  auto application = makeApplication();
  // msca_renew_certificate is queued by nothing yet (its handler comes with AD CS).
  CHECK(application->unhandledJobTypes() == std::vector<std::string>{"msca_renew_certificate"});
}

TEST_CASE("application: the catalog describes exactly the modules and DNS providers it drives") {
  auto application = makeApplication();
  CHECK(application->catalogMismatches() == std::vector<std::string>{});
}

}  // namespace certsteward
