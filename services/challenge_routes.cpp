// Following `_acme-challenge` delegations to the zone that carries the record.
#include <certsteward/services/challenge_routes.hpp>

#include <algorithm>

namespace certsteward::services {
namespace {

using domain::ErrorCode;
using domain::makeError;

std::string plain(std::string name) {
  if (!name.empty() && name.back() == '.') name.pop_back();
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  });
  return name;
}

std::string chain(const std::string& from, const std::vector<std::string>& hops) {
  std::string text = from;
  for (const auto& hop : hops)
    text += " -> " + hop;
  return text;
}

}  // namespace

domain::Result<std::optional<std::string>> ChallengeRouter::cnameOf(const std::string& name) const {
  if (const auto known = answers_.find(name); known != answers_.end()) return known->second;
  if (down_) return *down_;
  if (++lookups_ > kMaxLookups) {
    return makeError(ErrorCode::failed_precondition,
                     "more than " + std::to_string(kMaxLookups) +
                         " DNS lookups for one certificate: fewer names or shorter CNAME chains");
  }
  auto answer = p_.lookup->cnameOf(name);
  if (!answer) {
    if (answer.error().reason == ports::kResolversDown) down_ = answer.error();
    return answer.error();
  }
  answers_[name] = *answer;
  return answer;
}

std::string ChallengeRouter::challengeName(std::string name) {
  name = plain(std::move(name));
  if (name.starts_with("*.")) name.erase(0, 2);
  return "_acme-challenge." + name;
}

domain::Result<std::optional<ChallengeRoute>> ChallengeRouter::directRoute(
    const domain::Id& project, const std::string& name) const {
  const std::string challenge = challengeName(name);
  auto zone = p_.zones.findForName(project, challenge);
  if (!zone) return zone.error();
  if (!*zone) return std::optional<ChallengeRoute>();
  ChallengeRoute route;
  route.name = plain(name);
  route.challenge_name = challenge;
  route.record_name = challenge;
  route.zone = std::move(**zone);
  return std::optional<ChallengeRoute>(std::move(route));
}

domain::Result<ChallengeRoute> ChallengeRouter::routeName(const domain::Id& project,
                                                          const std::string& name) const {
  auto route = routeRecord(project, challengeName(name));
  if (route) route->name = plain(name);
  return route;
}

domain::Result<ChallengeRoute> ChallengeRouter::routeRecord(const domain::Id& project,
                                                            const std::string& recordName) const {
  ChallengeRoute route;
  route.challenge_name = plain(recordName);
  route.name = route.challenge_name;
  std::string at = route.challenge_name;
  std::string lookupFailure;
  for (int hop = 0; p_.lookup != nullptr; ++hop) {
    auto target = cnameOf(at);
    if (!target) {
      // Only a resolver that cannot answer leaves the name to its own zone; anything else (a
      // malformed CNAME, too many lookups) is the answer.
      if (target.error().code != ErrorCode::unavailable) return target.error();
      lookupFailure = target.error().message;
      break;
    }
    if (!*target) break;
    const std::string next = plain(**target);
    if (next == route.challenge_name ||
        std::find(route.cnames.begin(), route.cnames.end(), next) != route.cnames.end()) {
      route.cnames.push_back(next);
      return makeError(ErrorCode::failed_precondition,
                       "the CNAMEs of " + route.challenge_name + " form a loop (" +
                           chain(route.challenge_name, route.cnames) +
                           "): point it at a name "
                           "that holds the TXT record");
    }
    if (hop == kMaxHops) {
      return makeError(ErrorCode::failed_precondition,
                       "more than " + std::to_string(kMaxHops) + " CNAMEs lead from " +
                           route.challenge_name + " (" + chain(route.challenge_name, route.cnames) +
                           "): point it at the name that takes the record directly");
    }
    route.cnames.push_back(next);
    at = next;
  }
  if (!lookupFailure.empty()) {
    if (!route.cnames.empty()) {
      return makeError(ErrorCode::unavailable, "cannot follow the CNAMEs of " +
                                                   route.challenge_name + " past " + at + ": " +
                                                   lookupFailure);
    }
    route.note = "the CNAME check of " + route.challenge_name + " could not be made (" +
                 lookupFailure + "): routed to its own zone";
  }
  route.record_name = at;
  auto zone = p_.zones.findForName(project, at);
  if (!zone) return zone.error();
  if (!*zone) {
    if (!lookupFailure.empty()) {
      return makeError(ErrorCode::unavailable, "no zone of this project covers " +
                                                   route.challenge_name +
                                                   ", and whether it is a CNAME to one that "
                                                   "does cannot be checked: " +
                                                   lookupFailure);
    }
    if (route.cnames.empty()) {
      return makeError(ErrorCode::failed_precondition,
                       "no zone of this project covers " + route.challenge_name +
                           ": add its zone, or delegate it with a CNAME to a name in one");
    }
    return makeError(ErrorCode::failed_precondition,
                     route.challenge_name + " is delegated to " + at + " (" +
                         chain(route.challenge_name, route.cnames) +
                         "), and no zone of this project covers " + at + ": add that zone");
  }
  route.zone = std::move(**zone);
  return route;
}

}  // namespace certsteward::services
