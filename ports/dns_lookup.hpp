// DnsLookup: asks the DNS (through the resolvers the operator configured, `dns.resolvers`) what a
// name is an alias of. Used to follow a CNAME that delegates `_acme-challenge.<name>` elsewhere.
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

class DnsLookup {
 public:
  virtual ~DnsLookup() = default;

  /**
   * The target of `name`'s CNAME record (lower case, without a trailing dot); nullopt when the
   * name has none (it does not exist, or holds other records). @return unavailable when no
   * resolver answers, invalid_argument for a malformed name. Thread-safe; blocks on the network.
   */
  virtual domain::Result<std::optional<std::string>> cnameOf(const std::string& name) = 0;
};

}  // namespace certsteward::ports
