// DnsLookup: asks the DNS (through the resolvers the operator configured, `dns.resolvers`) what a
// name is an alias of, and which CAs its CAA records allow. Used to follow a CNAME that delegates
// `_acme-challenge.<name>` elsewhere, and to check CAA before an order.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/caa.hpp>
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

  /**
   * The CAA records of `name` itself (callers climb the tree: domain::caaClimb), following the
   * CNAMEs the resolver answers with (RFC 8659 3); empty when it has none or does not exist.
   * @return unavailable when no resolver answers (reason kResolversDown when none answered at
   * all), invalid_argument for a malformed name, failed_precondition when this lookup cannot ask
   * for CAA. Thread-safe; blocks on the network.
   */
  virtual domain::Result<std::vector<domain::CaaRecord>> caaOf(const std::string& name) {
    (void)name;
    return domain::makeError(domain::ErrorCode::failed_precondition,
                             "this DNS lookup cannot ask for CAA records");
  }
};

}  // namespace certsteward::ports
