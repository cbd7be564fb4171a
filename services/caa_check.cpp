// The CAA check before an order.
#include <certsteward/services/caa_check.hpp>

#include <certsteward/domain/issuance_policy.hpp>

namespace certsteward::services {

CaaCheck checkCaa(ports::DnsLookup& lookup, const std::vector<std::string>& names,
                  const std::vector<std::string>& identities, const std::string& accountUri,
                  std::string_view method, CaaAnswers* answers) {
  CaaCheck out;
  CaaAnswers own;
  CaaAnswers& asked = answers != nullptr ? *answers : own;  // parents shared between names
  for (const auto& name : names) {
    if (domain::isIpIdentifier(name)) continue;
    domain::CaaFinding finding;
    bool known = true;
    for (const auto& candidate : domain::caaClimb(name)) {
      auto it = asked.find(candidate);
      if (it == asked.end()) it = asked.emplace(candidate, lookup.caaOf(candidate)).first;
      if (!it->second) {
        // No resolver answering at all: the other names are not asked either (each would wait
        // for every resolver's timeout again).
        if (it->second.error().reason == ports::kResolversDown) {
          out.notes.push_back("CAA could not be read (" + it->second.error().message +
                              "): left to the CA");
          return out;
        }
        out.notes.push_back("the CAA of " + candidate + " could not be read (" +
                            it->second.error().message + "): left to the CA");
        known = false;
        break;
      }
      if (!it->second->empty()) {
        finding = {candidate, *it->second};
        break;
      }
    }
    if (!known) continue;
    const auto verdict = domain::judgeCaa(name, finding, identities, accountUri, method);
    if (!verdict.allowed) {
      out.allowed = false;
      out.reason = "CAA forbids this CA for " + name + ": " + verdict.reason;
      return out;
    }
  }
  return out;
}

}  // namespace certsteward::services
