// The shared bind9 (support/bind9_fixture.hpp) once it takes signed updates: the fixture waits
// for "all zones loaded" and the "running" after it; a signed update of a probe record, retried
// for at most 5 s, also shows that the TSIG keys and the update policy are in place (once per
// test process).
#pragma once

#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>
#include "support/bind9_fixture.hpp"

namespace certsteward::testing {

inline Bind9Server& readyBind9() {
  static const bool ready = [] {
    using namespace std::chrono_literals;
    adapters::dns::Rfc2136Settings s;
    s.server = bind9().address();
    s.key_name = Bind9Server::kKey256;
    s.secret = Bind9Server::kSecret256;
    s.timeout = 500ms;
    const ports::TxtRecord probe{"example.test.", "_ready.example.test.", "ready", 60};
    adapters::dns::Rfc2136DnsProvider dns(s);
    for (int attempt = 0; attempt < 50; ++attempt) {
      if (dns.present(probe).ok()) return dns.cleanup(probe).ok();
      std::this_thread::sleep_for(100ms);
    }
    return false;
  }();
  REQUIRE_MESSAGE(ready, "bind9 took no update within 5 s");
  return bind9();
}

}  // namespace certsteward::testing
