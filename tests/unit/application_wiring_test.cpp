// The application's wiring: every job type a running server can queue reaches a handler, every
// kind the catalog describes is one this build drives (and the reverse), and store URLs reach
// their store.
#include <doctest/doctest.h>

#include <certsteward/app/application.hpp>
#include <certsteward/app/store_factory.hpp>

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

TEST_CASE("store factory: PostgreSQL URLs open the PostgreSQL store, and backup points to pg_dump") {
  // Nothing listens on port 1: the store is unavailable, saying why, without the password.
  const auto opened =
      app::openStore("postgresql://cs:secret-pw@127.0.0.1:1/cs?connect_timeout=2", {});
  REQUIRE_FALSE(opened.ok());
  CHECK(opened.error().code == domain::ErrorCode::unavailable);
  CHECK(opened.error().message.find("store.url (postgresql)") != std::string::npos);
  CHECK(opened.error().message.find("secret-pw") == std::string::npos);
  const auto malformed = app::openStore("postgresql://cs:secret-pw@[::1/cs", {});
  REQUIRE_FALSE(malformed.ok());
  CHECK(malformed.error().code == domain::ErrorCode::invalid_argument);
  CHECK(malformed.error().message.find("secret-pw") == std::string::npos);
  for (const auto& url : {"postgresql://cs@db/cs", "postgres://cs@db/cs"}) {
    CHECK(app::isPostgresUrl(url));
    const auto backup = app::backupStore(url, "/tmp/never-written.dump");
    REQUIRE_FALSE(backup.ok());
    CHECK(backup.error().code == domain::ErrorCode::failed_precondition);
    CHECK(backup.error().message.find("pg_dump") != std::string::npos);
    CHECK_FALSE(app::restoreStore(url, "/tmp/never-read.dump").ok());
  }
  CHECK_FALSE(app::isPostgresUrl("sqlite:///var/lib/x.db"));
}

}  // namespace certsteward
