// The outbound policy of the tests' own receivers: they listen on loopback, which an operator
// opens with network.outbound_allow = 127.0.0.0/8, ::1 (refused by default).
#pragma once

#include <memory>

#include <certsteward/adapters/common/outbound.hpp>

namespace certsteward::testing {

inline std::shared_ptr<const adapters::common::Outbound> loopbackOutbound() {
  return std::make_shared<adapters::common::Outbound>(
      domain::OutboundPolicy({*domain::parseCidr("127.0.0.0/8"), *domain::parseCidr("::1/128")}));
}

}  // namespace certsteward::testing
