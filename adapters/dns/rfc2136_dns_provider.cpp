// RFC 2136 updates and TXT lookups through ldns; ldns statuses and DNS rcodes become domain
// errors here, and no secret ever reaches a message.
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>

#include <certsteward/adapters/dns/dns_names.hpp>
#include <certsteward/adapters/dns/ldns_query.hpp>

#include <algorithm>
#include <memory>
#include <thread>

namespace certsteward::adapters::dns {
using domain::ErrorCode;
using domain::makeError;

Rfc2136DnsProvider::Rfc2136DnsProvider(Rfc2136Settings settings) : settings_(std::move(settings)) {}

domain::Status Rfc2136DnsProvider::validate(const Rfc2136Settings& s) {
  if (s.server.empty()) return makeError(ErrorCode::invalid_argument, "server is required");
  if (s.key_name.empty() || !plainName(s.key_name)) {
    return makeError(ErrorCode::invalid_argument, "key_name is required (a DNS name)");
  }
  if (s.algorithm != "hmac-sha256" && s.algorithm != "hmac-sha512") {
    return makeError(ErrorCode::invalid_argument, "algorithm must be hmac-sha256 or hmac-sha512");
  }
  if (s.secret.empty())
    return makeError(ErrorCode::invalid_argument, "the TSIG secret is required");
  const bool base64 = std::all_of(s.secret.begin(), s.secret.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '+' ||
           c == '/' || c == '=';
  });
  if (!base64) return makeError(ErrorCode::invalid_argument, "the TSIG secret must be base64");
  return {};
}

domain::Status Rfc2136DnsProvider::present(const ports::TxtRecord& record) {
  return update(record, true);
}

domain::Status Rfc2136DnsProvider::cleanup(const ports::TxtRecord& record) {
  return update(record, false);
}

domain::Status Rfc2136DnsProvider::update(const ports::TxtRecord& record, bool add) {
  if (auto s = validate(settings_); !s) return s;
  if (!plainName(record.zone) || !plainName(record.name) || !plainTxt(record.value)) {
    return makeError(ErrorCode::invalid_argument, "malformed TXT record or zone name");
  }
  auto resolver = resolverFor(settings_.server, settings_.timeout, settings_.outbound.get());
  if (!resolver) return resolver.error();
  const std::string keyName = absolute(settings_.key_name);
  const std::string algorithm = settings_.algorithm + ".";
  ldns_resolver_set_tsig_keyname(resolver->get(), keyName.c_str());
  ldns_resolver_set_tsig_algorithm(resolver->get(), algorithm.c_str());
  ldns_resolver_set_tsig_keydata(resolver->get(), settings_.secret.c_str());

  // Add: "<name> <ttl> IN TXT value". Delete one RR (RFC 2136 2.5.4): class NONE, TTL 0.
  const std::string text = absolute(record.name) + " " +
                           std::to_string(add ? std::max(record.ttl_seconds, 1) : 0) +
                           " IN TXT \"" + record.value + "\"";
  ldns_rr* rr = nullptr;
  if (ldns_rr_new_frm_str(&rr, text.c_str(), 0, nullptr, nullptr) != LDNS_STATUS_OK) {
    return makeError(ErrorCode::invalid_argument, "malformed TXT record");
  }
  if (!add) ldns_rr_set_class(rr, LDNS_RR_CLASS_NONE);
  RrList updates(ldns_rr_list_new());
  ldns_rr_list_push_rr(updates.get(), rr);
  ldns_rdf* zone = ldns_dname_new_frm_str(absolute(record.zone).c_str());
  if (zone == nullptr) return makeError(ErrorCode::invalid_argument, "malformed zone name");
  // ldns_update_pkt_new owns `zone` from here and copies the update list.
  Packet request(ldns_update_pkt_new(zone, LDNS_RR_CLASS_IN, nullptr, updates.get(), nullptr));
  if (!request) return makeError(ErrorCode::internal, "cannot build the DNS update");
  ldns_pkt_set_rd(request.get(), false);
  if (ldns_update_pkt_tsig_add(request.get(), resolver->get()) != LDNS_STATUS_OK) {
    return makeError(ErrorCode::invalid_argument, "cannot sign the update with the TSIG key");
  }
  ldns_pkt* raw = nullptr;
  const ldns_status sent = ldns_resolver_send_pkt(&raw, resolver->get(), request.get());
  Packet answer(raw);
  if (sent == LDNS_STATUS_CRYPTO_TSIG_BOGUS || sent == LDNS_STATUS_CRYPTO_TSIG_ERR) {
    return makeError(ErrorCode::permission_denied,
                     "the DNS server did not accept the TSIG key (name, algorithm or secret)");
  }
  if (sent != LDNS_STATUS_OK || !answer) {
    return makeError(ErrorCode::unavailable, "DNS server " + settings_.server +
                                                 " did not answer the update (" +
                                                 ldns_get_errorstr_by_id(sent) + ")");
  }
  switch (ldns_pkt_get_rcode(answer.get())) {
    case LDNS_RCODE_NOERROR:
      return {};
    case LDNS_RCODE_NOTAUTH:
    case LDNS_RCODE_REFUSED:
      return makeError(ErrorCode::permission_denied,
                       "the DNS server refused the update: check the TSIG key and the zone's "
                       "update policy");
    case LDNS_RCODE_NOTZONE:
      return makeError(ErrorCode::invalid_argument,
                       record.name + " is not inside the zone " + record.zone);
    default: {
      char* rcode = ldns_pkt_rcode2str(ldns_pkt_get_rcode(answer.get()));
      const std::string name = rcode != nullptr ? rcode : "unknown";
      free(rcode);  // NOLINT: allocated by ldns
      return makeError(ErrorCode::unavailable, "the DNS server answered the update with " + name);
    }
  }
}

domain::Result<std::vector<std::string>> Rfc2136DnsProvider::lookupTxt(
    const std::string& server, const std::string& name) const {
  if (!plainName(name)) return makeError(ErrorCode::invalid_argument, "malformed name");
  auto resolver = resolverFor(server, settings_.timeout, settings_.outbound.get());
  if (!resolver) return resolver.error();
  Rdf owner(ldns_dname_new_frm_str(absolute(name).c_str()));
  if (!owner) return makeError(ErrorCode::invalid_argument, "malformed name");
  ldns_pkt* raw = nullptr;
  const ldns_status status = ldns_resolver_query_status(&raw, resolver->get(), owner.get(),
                                                        LDNS_RR_TYPE_TXT, LDNS_RR_CLASS_IN, 0);
  Packet answer(raw);
  if (status != LDNS_STATUS_OK || !answer) {
    return makeError(ErrorCode::unavailable, "DNS server " + server + " did not answer");
  }
  std::vector<std::string> values;
  RrList txt(ldns_pkt_rr_list_by_type(answer.get(), LDNS_RR_TYPE_TXT, LDNS_SECTION_ANSWER));
  for (std::size_t i = 0; txt && i < ldns_rr_list_rr_count(txt.get()); ++i) {
    const ldns_rr* rr = ldns_rr_list_rr(txt.get(), i);
    std::string value;
    for (std::size_t j = 0; j < ldns_rr_rd_count(rr); ++j) {
      char* piece = ldns_rdf2str(ldns_rr_rdf(rr, j));
      if (piece != nullptr) value += unquote(piece);
      free(piece);  // NOLINT: allocated by ldns
    }
    values.push_back(std::move(value));
  }
  return values;
}

std::unique_ptr<Rfc2136DnsProvider> Rfc2136DnsProvider::visibilityChecker(
    const std::vector<std::string>& servers, std::chrono::milliseconds timeout,
    std::chrono::milliseconds pollInterval, std::shared_ptr<const common::Outbound> outbound,
    FindAuthoritative find) {
  Rfc2136Settings s;
  s.server = servers.empty() ? std::string() : servers.front();
  s.authoritative = servers;
  s.find_authoritative = std::move(find);
  s.timeout = timeout;
  s.poll_interval = pollInterval;
  s.outbound = std::move(outbound);
  return std::make_unique<Rfc2136DnsProvider>(std::move(s));
}

domain::Result<std::vector<std::string>> Rfc2136DnsProvider::serversFor(const std::string& zone) {
  std::vector<std::string> servers = settings_.authoritative;
  const bool discover = servers.empty() && settings_.find_authoritative &&
                        (settings_.server.empty() || settings_.check_name_servers);
  if (servers.empty() && !settings_.server.empty()) servers = {settings_.server};
  if (!discover && !servers.empty()) return servers;
  if (!settings_.find_authoritative) {
    return makeError(ErrorCode::failed_precondition,
                     "no server to check the record on: set the credential's check_servers");
  }
  {
    std::lock_guard lock(foundMutex_);
    if (const auto it = found_.find(zone); it != found_.end()) return it->second;
  }
  auto found = settings_.find_authoritative(zone);
  if (!found) return found.error();
  for (const auto& primary : servers) {  // the primary written to, which may be hidden
    if (std::find(found->begin(), found->end(), primary) == found->end()) found->push_back(primary);
  }
  if (found->empty()) {
    return makeError(ErrorCode::unavailable, "the resolvers know no name server of the zone " +
                                                 zone + ": set the credential's check_servers");
  }
  std::lock_guard lock(foundMutex_);
  found_[zone] = *found;
  return found;
}

domain::Status Rfc2136DnsProvider::waitVisible(const ports::TxtRecord& record,
                                               domain::Duration timeout) {
  auto found = serversFor(record.zone);
  if (!found) return found.error();
  const std::vector<std::string> servers = std::move(*found);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string missingOn;
  while (true) {
    missingOn.clear();
    for (const auto& server : servers) {
      auto values = lookupTxt(server, record.name);
      // A server the outbound policy refuses never becomes visible: said at once.
      if (!values && values.error().reason == common::kOutboundRefused) return values.error();
      if (!values || std::find(values->begin(), values->end(), record.value) == values->end()) {
        missingOn = server;
        break;
      }
    }
    if (missingOn.empty()) return {};
    if (std::chrono::steady_clock::now() + settings_.poll_interval > deadline) break;
    std::this_thread::sleep_for(settings_.poll_interval);
  }
  return makeError(ErrorCode::unavailable, "the TXT record " + record.name + " is not visible on " +
                                               missingOn + " after " +
                                               std::to_string(timeout.count()) + " ms");
}

}  // namespace certsteward::adapters::dns
