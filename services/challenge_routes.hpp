// ChallengeRouter: where the DNS-01 challenge of a name is answered. `_acme-challenge.<name>` is
// looked up for a CNAME first (through DnsLookup, the operator's resolvers); a CNAME delegates
// the challenge to its target, followed up to 8 hops with loops refused, and the TXT record is
// written at the last name, through the project's zone that covers it (the longest match). A
// name whose own zone the project does not manage is served when its delegation lands in one it
// does. When the resolvers do not answer, a name its project's zone covers directly is routed
// there (with a note); otherwise the lookup's error is the answer. Bounded: each name is asked
// once per router (answers kept), once no resolver answers at all none is asked again, and at
// most kMaxLookups are made (more is refused). One per request or attempt; not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/zone.hpp>
#include <certsteward/ports/dns_lookup.hpp>
#include <certsteward/ports/zone_repository.hpp>

namespace certsteward::services {

struct ChallengeRoute {
  std::string name;                 // the certificate's name, e.g. "*.example.com"
  std::string challenge_name;       // "_acme-challenge.example.com"
  std::vector<std::string> cnames;  // the CNAME targets followed, in order; empty: no delegation
  std::string record_name;          // where the TXT record is written
  domain::Zone zone;                // the project's zone that carries it
  std::string note;                 // set when the CNAME check could not be made
};

class ChallengeRouter {
 public:
  static constexpr int kMaxHops = 8;
  static constexpr int kMaxLookups = 1024;  // 100 names of 9 hops each fit
  struct Ports {
    const ports::ZoneRepository& zones;
    ports::DnsLookup* lookup = nullptr;  // none: CNAMEs are not followed
  };
  explicit ChallengeRouter(Ports p) : p_(p) {}

  // "_acme-challenge.example.com" for "example.com" and "*.example.com".
  static std::string challengeName(std::string name);

  // The route of a challenge record's name (`_acme-challenge.…`, with or without its trailing
  // dot). failed_precondition, in words naming the name and the fix, when no zone of the
  // project carries it or the delegation is broken (a loop, too many hops).
  domain::Result<ChallengeRoute> routeRecord(const domain::Id& project,
                                             const std::string& recordName) const;
  // The route of a certificate's name.
  domain::Result<ChallengeRoute> routeName(const domain::Id& project,
                                           const std::string& name) const;
  // The route of a name covered directly by one of the project's zones, without any lookup;
  // nullopt when no zone covers it.
  domain::Result<std::optional<ChallengeRoute>> directRoute(const domain::Id& project,
                                                            const std::string& name) const;

 private:
  // The CNAME of `name`, asked once; the resolvers' failure once they are found down.
  domain::Result<std::optional<std::string>> cnameOf(const std::string& name) const;

  Ports p_;
  mutable std::map<std::string, std::optional<std::string>> answers_;
  mutable std::optional<domain::Error> down_;
  mutable int lookups_ = 0;
};

}  // namespace certsteward::services
