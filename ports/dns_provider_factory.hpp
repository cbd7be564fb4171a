// DnsProviderFactory: makes the DnsProvider a DNS credential describes ("rfc2136", ...), given
// the credential's opened secret. Thread-safe.
#pragma once

#include <string>

#include <map>
#include <string>
#include <vector>

#include <certsteward/domain/dns_credential.hpp>

#include <certsteward/domain/result.hpp>
#include <certsteward/ports/dns_provider.hpp>

namespace certsteward::ports {

// One kind of DNS provider this build can drive, and whether this instance allows it now.
struct DnsProviderKind {
  std::string name;  // the `provider` of a DNS credential
  bool available = false;
  std::string note;  // why not, when unavailable
};

// An account a provider made for us on its server (acme-dns): the credential's settings, its
// secret, and the one name it answers for.
struct RegisteredDnsAccount {
  std::map<std::string, std::string> settings;
  std::string secret;
  std::string served_name;  // no trailing dot
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

  /**
   * Registers a new account at the server `credential`'s settings name, for providers that make
   * their own accounts ("acmedns"). @return the account; failed_precondition for a provider that
   * does not; invalid_argument for bad settings; unavailable or permission_denied when the server
   * does not register one. Blocks on the network.
   */
  virtual domain::Result<RegisteredDnsAccount> registerAccount(
      const domain::DnsCredential& credential) {
    return domain::makeError(
        domain::ErrorCode::failed_precondition,
        "the DNS provider '" + credential.provider + "' has no accounts to register here");
  }
};

}  // namespace certsteward::ports
