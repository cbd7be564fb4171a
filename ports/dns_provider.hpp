// DnsProvider: publishes and removes the TXT records of DNS-01 challenges in a zone.
#pragma once

#include <memory>
#include <string>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::ports {

struct TxtRecord {
  std::string zone;  // e.g. "example.com."
  std::string name;  // fully qualified, e.g. "_acme-challenge.www.example.com."
  std::string value;
  int ttl_seconds = 60;
};

class DnsProvider {
 public:
  virtual ~DnsProvider() = default;

  /**
   * Adds `record`. @return unavailable when the server cannot be reached, permission_denied
   * when it refuses the credential, invalid_argument for a record outside the zone.
   * Thread-safe; blocks on the network.
   */
  virtual domain::Status present(const TxtRecord& record) = 0;

  /** Removes `record`; removing an absent record succeeds. Errors as present(). */
  virtual domain::Status cleanup(const TxtRecord& record) = 0;

  /**
   * Waits until the zone's authoritative servers answer `record`, at most `timeout`.
   * @return unavailable when it is not visible in time.
   */
  virtual domain::Status waitVisible(const TxtRecord& record, domain::Duration timeout) = 0;
};

using DnsProviderPtr = std::unique_ptr<DnsProvider>;

}  // namespace certsteward::ports
