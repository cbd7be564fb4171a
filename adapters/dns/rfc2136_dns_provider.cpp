// RFC 2136 updates and TXT lookups through ldns; ldns statuses and DNS rcodes become domain
// errors here, and no secret ever reaches a message.
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>

#include <certsteward/adapters/dns/dns_names.hpp>

#include <ldns/ldns.h>

#include <netdb.h>
#include <sys/socket.h>

#include <arpa/inet.h>

#include <algorithm>
#include <memory>
#include <thread>

namespace certsteward::adapters::dns {
namespace {

using domain::ErrorCode;
using domain::makeError;

struct ResolverFree {
  void operator()(ldns_resolver* r) const { ldns_resolver_deep_free(r); }
};
struct PktFree {
  void operator()(ldns_pkt* p) const { ldns_pkt_free(p); }
};
struct RdfFree {
  void operator()(ldns_rdf* r) const { ldns_rdf_deep_free(r); }
};
struct RrListFree {
  void operator()(ldns_rr_list* l) const { ldns_rr_list_deep_free(l); }
};
using Resolver = std::unique_ptr<ldns_resolver, ResolverFree>;
using Packet = std::unique_ptr<ldns_pkt, PktFree>;
using Rdf = std::unique_ptr<ldns_rdf, RdfFree>;
using RrList = std::unique_ptr<ldns_rr_list, RrListFree>;

struct Endpoint {
  std::string address;  // numeric
  bool v6 = false;
  std::uint16_t port = 53;
};

// "host", "host:port", "[v6]:port" -> a numeric address (resolving names once).
domain::Result<Endpoint> endpointOf(const std::string& server) {
  std::string host = server;
  std::string port;
  if (host.starts_with("[")) {
    const auto close = host.find(']');
    if (close == std::string::npos) {
      return makeError(ErrorCode::invalid_argument, "server: unbalanced '[' in " + server);
    }
    if (close + 1 < host.size() && host[close + 1] == ':') port = host.substr(close + 2);
    host = host.substr(1, close - 1);
  } else if (std::count(host.begin(), host.end(), ':') == 1) {
    port = host.substr(host.find(':') + 1);
    host = host.substr(0, host.find(':'));
  }
  Endpoint e;
  if (!port.empty()) {
    int value = 0;
    for (const char c : port) {
      if (c < '0' || c > '9' || value > 65535) {
        return makeError(ErrorCode::invalid_argument, "server: bad port in " + server);
      }
      value = value * 10 + (c - '0');
    }
    if (value < 1 || value > 65535) {
      return makeError(ErrorCode::invalid_argument, "server: bad port in " + server);
    }
    e.port = static_cast<std::uint16_t>(value);
  }
  if (host.empty()) return makeError(ErrorCode::invalid_argument, "server is empty");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_DGRAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0 || found == nullptr) {
    return makeError(ErrorCode::unavailable, "cannot resolve DNS server " + host);
  }
  char text[INET6_ADDRSTRLEN] = {};
  if (found->ai_family == AF_INET6) {
    e.v6 = true;
    inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(found->ai_addr)->sin6_addr, text,
              sizeof text);
  } else {
    inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(found->ai_addr)->sin_addr, text,
              sizeof text);
  }
  freeaddrinfo(found);
  e.address = text;
  return e;
}

domain::Result<Resolver> resolverFor(const std::string& server, std::chrono::milliseconds timeout,
                                     const common::Outbound* outbound) {
  auto endpoint = endpointOf(server);
  if (!endpoint) return endpoint.error();
  // The numeric address ldns will talk to is the one the outbound policy checks.
  if (outbound != nullptr) {
    auto checked = outbound->addressesOf(endpoint->address);
    if (!checked) {
      auto error = checked.error();
      error.message = "DNS server " + server + ": " + error.message;
      return error;
    }
  }
  Resolver r(ldns_resolver_new());
  if (!r) return makeError(ErrorCode::internal, "out of memory");
  Rdf address(ldns_rdf_new_frm_str(endpoint->v6 ? LDNS_RDF_TYPE_AAAA : LDNS_RDF_TYPE_A,
                                   endpoint->address.c_str()));
  if (!address || ldns_resolver_push_nameserver(r.get(), address.get()) != LDNS_STATUS_OK) {
    return makeError(ErrorCode::invalid_argument, "server: not an address: " + server);
  }
  ldns_resolver_set_port(r.get(), endpoint->port);
  timeval tv{};
  tv.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  ldns_resolver_set_timeout(r.get(), tv);
  ldns_resolver_set_retry(r.get(), 1);
  ldns_resolver_set_retrans(r.get(), 1);
  ldns_resolver_set_recursive(r.get(), false);
  ldns_resolver_set_dnssec(r.get(), false);
  ldns_resolver_set_fallback(r.get(), true);  // TCP when truncated
  ldns_resolver_set_random(r.get(), false);
  return r;
}

}  // namespace

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
    std::chrono::milliseconds pollInterval, std::shared_ptr<const common::Outbound> outbound) {
  Rfc2136Settings s;
  s.server = servers.empty() ? std::string() : servers.front();
  s.authoritative = servers;
  s.timeout = timeout;
  s.poll_interval = pollInterval;
  s.outbound = std::move(outbound);
  return std::make_unique<Rfc2136DnsProvider>(std::move(s));
}

domain::Status Rfc2136DnsProvider::waitVisible(const ports::TxtRecord& record,
                                               domain::Duration timeout) {
  const auto servers = settings_.authoritative.empty() ? std::vector<std::string>{settings_.server}
                                                       : settings_.authoritative;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::string missingOn;
  while (true) {
    missingOn.clear();
    for (const auto& server : servers) {
      auto values = lookupTxt(server, record.name);
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
