// DnsLookup: asks the DNS (through the resolvers the operator configured, `dns.resolvers`) what a
// name is an alias of. Used to follow a CNAME that delegates `_acme-challenge.<name>` elsewhere.
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

// The reason of cnameOf's unavailable when no resolver answered at all (as opposed to one
// answering with an error for this name).
inline constexpr const char* kResolversDown = "RESOLVERS_DOWN";

class DnsLookup {
 public:
  virtual ~DnsLookup() = default;

  /**
   * The target of `name`'s CNAME record (lower case, without a trailing dot); nullopt when the
   * name has none (it does not exist, or holds other records). @return unavailable when no
   * resolver answers (reason kResolversDown when none answered at all), invalid_argument for a
   * malformed name, failed_precondition for a CNAME to a malformed name. Thread-safe; blocks on the
   * network.
   */
  virtual domain::Result<std::optional<std::string>> cnameOf(const std::string& name) = 0;
};

}  // namespace certsteward::ports
