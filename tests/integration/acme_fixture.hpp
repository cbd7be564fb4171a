// The ACME test world shared by the ACME integration tests and the Issuer contract suite: one
// Pebble per test process (started on first use, validating DNS-01 through the shared bind9), a
// SecretBox for account keys, the issuer's settings for that Pebble, and a DNS provider that
// publishes in bind9's zone "example.test" as the job handlers' zone routing would.
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <string>
#include <utility>

#include <certsteward/adapters/acme/acme_issuer.hpp>
#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>
#include "integration/bind9_ready.hpp"
#include "support/pebble_server.hpp"

namespace certsteward::testing::acme_world {

inline PebbleServer& pebble() {
  static PebbleServer server(PebbleOptions{readyBind9().address(), {}, 0});
  REQUIRE_MESSAGE(server.available(), server.reason());
  return server;
}

inline adapters::crypto::AesGcmSecretBox& box() {
  static adapters::crypto::AesGcmSecretBox instance(std::string(40, 's'));
  return instance;
}

inline adapters::acme::AcmeSettings settings(const PebbleServer& ca) {
  using namespace std::chrono_literals;
  adapters::acme::AcmeSettings s;
  s.ca_bundle = ca.caFile();
  s.request_timeout = 10s;
  s.order_timeout = 60s;
  s.dns_timeout = 10s;
  s.poll_interval = 100ms;
  return s;
}

inline adapters::dns::Rfc2136Settings tsig(const char* secret = Bind9Server::kSecret256) {
  using namespace std::chrono_literals;
  adapters::dns::Rfc2136Settings s;
  s.server = bind9().address();
  s.key_name = Bind9Server::kKey256;
  s.secret = secret;
  s.timeout = 2s;
  s.poll_interval = 50ms;
  return s;
}

// The zone the certificate's names live in; the job handlers choose it from the zones table.
class ExampleZone : public ports::DnsProvider {
 public:
  explicit ExampleZone(adapters::dns::Rfc2136Settings s) : inner_(std::move(s)) {}
  domain::Status present(const ports::TxtRecord& r) override { return inner_.present(inZone(r)); }
  domain::Status cleanup(const ports::TxtRecord& r) override {
    ++cleanups;
    return inner_.cleanup(inZone(r));
  }
  domain::Status waitVisible(const ports::TxtRecord& r, domain::Duration t) override {
    return inner_.waitVisible(inZone(r), t);
  }
  int cleanups = 0;
  adapters::dns::Rfc2136DnsProvider inner_;

 private:
  static ports::TxtRecord inZone(ports::TxtRecord r) {
    r.zone = "example.test.";
    return r;
  }
};

inline domain::AcmeAccount account(const PebbleServer& ca,
                                   const std::string& email = "ops@example.test") {
  domain::AcmeAccount a;
  a.id = "0123456789abcdef01234567";
  a.directory_url = ca.directoryUrl();
  a.email = email;
  return a;
}

}  // namespace certsteward::testing::acme_world
