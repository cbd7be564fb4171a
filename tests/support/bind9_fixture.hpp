// The one bind9 a test process shares (started on first use, stopped at exit); a test that
// needs it fails with the reason when bind9 cannot run here.
#pragma once

#include <doctest/doctest.h>

#include "support/bind9_server.hpp"

namespace certsteward::testing {

inline Bind9Server& bind9() {
  static Bind9Server server;
  REQUIRE_MESSAGE(server.available(), server.reason());
  return server;
}

}  // namespace certsteward::testing
