// The CAA check before an order (RFC 8659): for each name, the first CAA set climbing the tree,
// looked up through the operator's resolvers, judged for one CA provider, account and challenge.
// The CA checks CAA itself: a resolver that does not answer, or a provider whose CAA identities
// are not known, does not stop the order here (a note says so).
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/caa.hpp>
#include <certsteward/ports/dns_lookup.hpp>

namespace certsteward::services {

struct CaaCheck {
  bool allowed = true;
  std::string reason;              // why not: the name, and the record with where it is
  std::vector<std::string> notes;  // what could not be checked
};

// What the DNS answered, by name: one attempt asks each name once, whichever CA it judges for.
using CaaAnswers = std::map<std::string, domain::Result<std::vector<domain::CaaRecord>>>;

// IP addresses are not judged (CAA is about domain names). `answers` keeps what was looked up
// (null: kept for this call only).
CaaCheck checkCaa(ports::DnsLookup& lookup, const std::vector<std::string>& names,
                  const std::vector<std::string>& identities, const std::string& accountUri,
                  std::string_view method, CaaAnswers* answers = nullptr);

}  // namespace certsteward::services
