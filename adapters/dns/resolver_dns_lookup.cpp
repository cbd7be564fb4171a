// CNAME lookups through recursive resolvers, with ldns.
#include <certsteward/adapters/dns/resolver_dns_lookup.hpp>

#include <cctype>
#include <fstream>
#include <sstream>

#include <certsteward/adapters/dns/dns_names.hpp>
#include <certsteward/adapters/dns/ldns_query.hpp>

namespace certsteward::adapters::dns {
namespace {

using domain::ErrorCode;
using domain::makeError;

// The `nameserver` lines of a resolv.conf (IPv6 addresses bracketed for resolverFor).
std::vector<std::string> systemResolvers(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line) && out.size() < 8) {
    std::istringstream words(line);
    std::string key;
    std::string address;
    if (!(words >> key >> address) || key != "nameserver") continue;
    if (const auto zoneIndex = address.find('%'); zoneIndex != std::string::npos) {
      address.resize(zoneIndex);
    }
    out.push_back(address.find(':') != std::string::npos ? "[" + address + "]" : address);
  }
  return out;
}

std::string ownerText(const ldns_rdf* rdf) {
  char* text = ldns_rdf2str(rdf);
  std::string out = text != nullptr ? text : "";
  free(text);  // NOLINT: allocated by ldns
  return lowered(relative(out));
}

// The first answer (NOERROR or NXDOMAIN) of `resolvers`, asked in turn with recursion desired,
// for `owner`/`type`; null when none gave one. `failures` collects why each failed; `answered`
// is set when one answered with an error rcode (the name's fault, not the resolvers').
Packet askResolvers(const std::vector<std::string>& resolvers, std::chrono::milliseconds timeout,
                    const ldns_rdf* owner, ldns_rr_type type, std::string& failures,
                    bool& answered) {
  for (const auto& server : resolvers) {
    // The operator's own resolvers: not a project's destination, so no outbound policy.
    auto resolver = resolverFor(server, timeout, nullptr, true);
    if (!resolver) {
      failures += (failures.empty() ? "" : "; ") + resolver.error().message;
      continue;
    }
    ldns_pkt* raw = nullptr;
    const ldns_status status =
        ldns_resolver_query_status(&raw, resolver->get(), owner, type, LDNS_RR_CLASS_IN, LDNS_RD);
    Packet answer(raw);
    if (status != LDNS_STATUS_OK || !answer) {
      failures += (failures.empty() ? "" : "; ") + server + " did not answer";
      continue;
    }
    const auto rcode = ldns_pkt_get_rcode(answer.get());
    if (rcode != LDNS_RCODE_NOERROR && rcode != LDNS_RCODE_NXDOMAIN) {
      answered = true;
      failures += (failures.empty() ? "" : "; ") + server + " answered with an error";
      continue;
    }
    return answer;
  }
  return nullptr;
}

// The data of the records of `type` that `answer` holds for `owner` (a relative, lower-case
// name), as text.
std::vector<std::string> recordsOf(const ldns_pkt* answer, const std::string& owner,
                                   ldns_rr_type type) {
  std::vector<std::string> out;
  RrList rrs(ldns_pkt_rr_list_by_type(answer, type, LDNS_SECTION_ANSWER));
  for (std::size_t i = 0; rrs && i < ldns_rr_list_rr_count(rrs.get()); ++i) {
    const ldns_rr* rr = ldns_rr_list_rr(rrs.get(), i);
    if (ownerText(ldns_rr_owner(rr)) != owner || ldns_rr_rd_count(rr) < 1) continue;
    out.push_back(ownerText(ldns_rr_rdf(rr, 0)));
  }
  return out;
}

// The text of a character-string rdata ("\"...\"" with escapes) without its quotes, unescaped.
std::string unquoted(const ldns_rdf* rdf) {
  char* raw = ldns_rdf2str(rdf);
  std::string text = raw != nullptr ? raw : "";
  free(raw);  // NOLINT: allocated by ldns
  if (text.size() >= 2 && text.front() == '"' && text.back() == '"') {
    text = text.substr(1, text.size() - 2);
  }
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 == text.size()) {
      out += text[i];
    } else if (i + 3 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])) &&
               std::isdigit(static_cast<unsigned char>(text[i + 2])) &&
               std::isdigit(static_cast<unsigned char>(text[i + 3]))) {
      out += static_cast<char>(std::stoi(text.substr(i + 1, 3)));
      i += 3;
    } else {
      out += text[++i];
    }
  }
  return out;
}

// `wanted` (relative, lower case) asked of `resolvers` for `type`: the answer, or why there is
// none — a malformed name, no resolver configured, or none answering (reason kResolversDown when
// none answered at all: the resolvers' state, not the name's).
domain::Result<Packet> askFor(const std::vector<std::string>& resolvers,
                              const DnsLookupSettings& settings, const std::string& name,
                              const std::string& wanted, ldns_rr_type type,
                              const std::string& what) {
  if (!plainName(wanted) || wanted.empty()) {
    return makeError(ErrorCode::invalid_argument, "malformed name: " + name);
  }
  if (resolvers.empty()) {
    return makeError(ErrorCode::unavailable,
                     "no DNS resolver is configured (dns.resolvers, or a nameserver in " +
                         settings.resolv_conf + ")");
  }
  Rdf owner(ldns_dname_new_frm_str(absolute(wanted).c_str()));
  if (!owner) return makeError(ErrorCode::invalid_argument, "malformed name: " + name);
  std::string failures;
  bool answered = false;  // some resolver answered, with an error
  Packet answer = askResolvers(resolvers, settings.timeout, owner.get(), type, failures, answered);
  if (!answer) {
    return makeError(ErrorCode::unavailable,
                     "no DNS resolver answered for " + what + wanted + " (" + failures + ")",
                     answered ? "" : ports::kResolversDown);
  }
  return answer;
}

}  // namespace

ResolverDnsLookup::ResolverDnsLookup(DnsLookupSettings settings)
    : settings_(std::move(settings)),
      resolvers_(settings_.resolvers.empty() ? systemResolvers(settings_.resolv_conf)
                                             : settings_.resolvers) {}

domain::Result<std::optional<std::string>> ResolverDnsLookup::cnameOf(const std::string& name) {
  const std::string wanted = lowered(relative(name));
  auto asked = askFor(resolvers_, settings_, name, wanted, LDNS_RR_TYPE_CNAME, "");
  if (!asked) return asked.error();
  const Packet answer = std::move(*asked);
  if (ldns_pkt_get_rcode(answer.get()) == LDNS_RCODE_NXDOMAIN) return std::optional<std::string>();
  for (const auto& target : recordsOf(answer.get(), wanted, LDNS_RR_TYPE_CNAME)) {
    if (!plainName(target) || target.empty()) {
      return makeError(ErrorCode::failed_precondition,
                       "the CNAME of " + wanted + " points at a malformed name");
    }
    return std::optional<std::string>(target);
  }
  return std::optional<std::string>();
}

domain::Result<std::vector<domain::CaaRecord>> ResolverDnsLookup::caaOf(const std::string& name) {
  const std::string wanted = lowered(relative(name));
  auto asked = askFor(resolvers_, settings_, name, wanted, LDNS_RR_TYPE_CAA, "the CAA of ");
  if (!asked) return asked.error();
  const Packet answer = std::move(*asked);
  std::vector<domain::CaaRecord> out;
  if (ldns_pkt_get_rcode(answer.get()) == LDNS_RCODE_NXDOMAIN) return out;
  // The resolver answers a CNAME with its chain: the records are those of its end (at most 8
  // hops, as for challenges).
  std::string at = wanted;
  for (int hop = 0; hop < 8; ++hop) {
    const auto next = recordsOf(answer.get(), at, LDNS_RR_TYPE_CNAME);
    if (next.empty()) break;
    at = next.front();
  }
  RrList rrs(ldns_pkt_rr_list_by_type(answer.get(), LDNS_RR_TYPE_CAA, LDNS_SECTION_ANSWER));
  for (std::size_t i = 0; rrs && i < ldns_rr_list_rr_count(rrs.get()); ++i) {
    const ldns_rr* rr = ldns_rr_list_rr(rrs.get(), i);
    if (ownerText(ldns_rr_owner(rr)) != at || ldns_rr_rd_count(rr) < 3) continue;
    domain::CaaRecord record;
    record.flags = ldns_rdf2native_int8(ldns_rr_rdf(rr, 0));
    char* tag = ldns_rdf2str(ldns_rr_rdf(rr, 1));
    record.tag = tag != nullptr ? tag : "";
    free(tag);  // NOLINT: allocated by ldns
    record.value = unquoted(ldns_rr_rdf(rr, 2));
    out.push_back(std::move(record));
  }
  return out;
}

domain::Result<std::vector<std::string>> ResolverDnsLookup::authoritativeServers(
    const std::string& zone, std::uint16_t port) {
  const std::string wanted = lowered(relative(zone));
  if (!plainName(wanted) || wanted.empty()) {
    return makeError(ErrorCode::invalid_argument, "malformed zone: " + zone);
  }
  if (resolvers_.empty()) {
    return makeError(ErrorCode::unavailable,
                     "no DNS resolver is configured (dns.resolvers, or a nameserver in " +
                         settings_.resolv_conf + ")");
  }
  // The records of `name`/`type` the first resolver that answers has; nullopt when none does.
  std::string failures;
  const auto ask = [&](const std::string& name,
                       ldns_rr_type type) -> std::optional<std::vector<std::string>> {
    Rdf owner(ldns_dname_new_frm_str(absolute(name).c_str()));
    if (!owner) return std::nullopt;
    bool answered = false;
    const Packet answer =
        askResolvers(resolvers_, settings_.timeout, owner.get(), type, failures, answered);
    if (!answer) return std::nullopt;
    return recordsOf(answer.get(), lowered(relative(name)), type);
  };
  const auto names = ask(wanted, LDNS_RR_TYPE_NS);
  if (!names) {
    return makeError(ErrorCode::unavailable, "no DNS resolver answered for the name servers of " +
                                                 wanted + " (" + failures + ")");
  }
  std::vector<std::string> servers;
  for (const auto& ns : *names) {
    if (!plainName(ns) || ns.empty()) continue;
    for (const auto type : {LDNS_RR_TYPE_A, LDNS_RR_TYPE_AAAA}) {
      const auto addresses = ask(ns, type);
      for (const auto& a : addresses.value_or(std::vector<std::string>{})) {
        if (servers.size() >= 8) return servers;
        servers.push_back((type == LDNS_RR_TYPE_AAAA ? "[" + a + "]" : a) + ":" +
                          std::to_string(port));
      }
    }
  }
  return servers;
}

}  // namespace certsteward::adapters::dns
