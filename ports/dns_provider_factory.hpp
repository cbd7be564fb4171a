// DnsProviderFactory: makes the DnsProvider a DNS credential describes ("rfc2136", ...), given
// the credential's opened secret. Thread-safe.
#pragma once

#include <string>

#include <certsteward/domain/dns_credential.hpp>
#include <string>
#include <vector>

#include <certsteward/domain/result.hpp>
#include <certsteward/ports/dns_provider.hpp>

namespace certsteward::ports {

// One kind of DNS provider this build can drive, and whether this instance allows it now.
struct DnsProviderKind {
  std::string name;  // the `provider` of a DNS credential
  bool available = false;
  std::string note;  // why not, when unavailable
};

class DnsProviderFactory {
 public:
  virtual ~DnsProviderFactory() = default;

  /** @return every provider kind of this build with its availability. Thread-safe. */
  virtual std::vector<DnsProviderKind> kinds() const { return {}; }

  /**
   * @return the provider; invalid_argument naming the setting that is missing or malformed;
   * failed_precondition for a provider kind this build cannot drive.
   */
  virtual domain::Result<DnsProviderPtr> make(const domain::DnsCredential& credential,
                                              const std::string& secret) = 0;
};

}  // namespace certsteward::ports
