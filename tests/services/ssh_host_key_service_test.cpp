// SshHostKeyService in process over a fake SSH world: a project admin reads the key a host
// offers; anyone less reaches nothing; a malformed host or port never leaves the server; every
// attempt that connects, successful or not, is audited with what it found.
#include <doctest/doctest.h>

#include <certsteward/services/ssh_host_key_service.hpp>
#include <certsteward/testing/fake_ssh_host_keys.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;

namespace {

const std::string kFingerprint = "SHA256:" + std::string(43, 'k');

struct HostKeyFixture : testing::ServiceFixture {
  testing::FakeSshHostKeys hosts;
  SshHostKeyService service{
      {hosts, store.rateLimits(), clock}, access, audit, std::chrono::seconds{5}};
  HostKeyFixture() {
    project("p1");
    hosts.offer("web1.example.test", 22, {kFingerprint, "ssh-ed25519"});
    hosts.offer("web1.example.test", 2222, {"SHA256:" + std::string(43, 'o'), "ssh-rsa"});
    hosts.refuse("169.254.169.254");
  }
};

}  // namespace

TEST_CASE("ssh host keys: a project admin reads the key a host offers, audited") {
  HostKeyFixture fx;
  const auto admin = fx.member("p1", ProjectRole::admin);
  auto key = fx.service.fetch(admin, fx.ctx(), "p1", "web1.example.test", 22);
  REQUIRE(key.ok());
  CHECK(key->fingerprint == kFingerprint);
  CHECK(key->key_type == "ssh-ed25519");
  CHECK(fx.service.fetch(admin, fx.ctx(), "p1", "web1.example.test", 2222)->key_type == "ssh-rsa");
  const auto audited = fx.audited("ssh_host_key.read");
  REQUIRE(audited.size() == 2);
  CHECK(audited.back().resource_id == "web1.example.test:22");
  CHECK(audited.back().details == "ssh-ed25519 " + kFingerprint);
  CHECK(audited.back().project_id == Id("p1"));
}

TEST_CASE("ssh host keys: who may read, and what never leaves the server") {
  HostKeyFixture fx;
  const auto admin = fx.member("p1", ProjectRole::admin);
  const struct {
    const char* name;
    Principal who;
    const char* project;
    std::string host;
    int port;
    ErrorCode code;
    const char* field;  // the 422's field, or nullptr
  } rows[] = {
      {"an operator", fx.member("p1", ProjectRole::operator_), "p1", "web1.example.test", 22,
       ErrorCode::permission_denied, nullptr},
      {"a viewer", fx.member("p1", ProjectRole::viewer), "p1", "web1.example.test", 22,
       ErrorCode::permission_denied, nullptr},
      {"another project's admin", admin, "p2", "web1.example.test", 22, ErrorCode::not_found,
       nullptr},
      {"an option for a host", admin, "p1", "-oProxyCommand=touch /tmp/x", 22,
       ErrorCode::invalid_argument, "host"},
      {"a port out of range", admin, "p1", "web1.example.test", 0, ErrorCode::invalid_argument,
       "port"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.name);
    auto refused = fx.service.fetch(row.who, fx.ctx(), row.project, row.host, row.port);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == row.code);
    if (row.field != nullptr) CHECK(refused.error().references.at(0) == row.field);
  }
  CHECK(fx.hosts.reads() == 0);  // none of them reached the network
  CHECK(fx.audited("ssh_host_key.read").empty());

  // Reached but failed: the port's error, and the attempt audited with it.
  auto silent = fx.service.fetch(admin, fx.ctx(), "p1", "db1.example.test", 22);
  REQUIRE_FALSE(silent.ok());
  CHECK(silent.error().code == ErrorCode::unavailable);
  auto refused = fx.service.fetch(admin, fx.ctx(), "p1", "169.254.169.254", 22);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::failed_precondition);
  const auto audited = fx.audited("ssh_host_key.read");
  REQUIRE(audited.size() == 2);
  CHECK(audited.front().details.starts_with("failed: "));
}

TEST_CASE("ssh host keys: ten fetches a minute per person") {
  HostKeyFixture fx;
  const auto admin = fx.member("p1", ProjectRole::admin);
  for (int i = 0; i < 10; ++i)
    REQUIRE(fx.service.fetch(admin, fx.ctx(), "p1", "web1.example.test", 22).ok());
  const auto limited = fx.service.fetch(admin, fx.ctx(), "p1", "web1.example.test", 22);
  REQUIRE_FALSE(limited.ok());
  CHECK(limited.error().reason == "RATE_LIMITED");
  CHECK(fx.hosts.reads() == 10);  // the eleventh reached nothing
  fx.clock.advance(std::chrono::minutes{1});
  CHECK(fx.service.fetch(admin, fx.ctx(), "p1", "web1.example.test", 22).ok());
}
