// DnsProviderFactory: makes the DnsProvider a DNS credential describes ("rfc2136", ...), given
// the credential's opened secret. Thread-safe.
#pragma once

#include <string>

#include "domain/dns_credential.hpp"
#include "domain/result.hpp"
#include "ports/dns_provider.hpp"

namespace certsteward::ports {

class DnsProviderFactory {
 public:
  virtual ~DnsProviderFactory() = default;

  /**
   * @return the provider; invalid_argument naming the setting that is missing or malformed;
   * failed_precondition for a provider kind this build cannot drive.
   */
  virtual domain::Result<DnsProviderPtr> make(const domain::DnsCredential& credential,
                                              const std::string& secret) = 0;
};

}  // namespace certsteward::ports
