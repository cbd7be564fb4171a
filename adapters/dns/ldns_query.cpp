// A resolver aimed at one DNS server, for the DNS adapters.
#include <certsteward/adapters/dns/ldns_query.hpp>

#include <netdb.h>
#include <sys/socket.h>

#include <arpa/inet.h>

#include <algorithm>

namespace certsteward::adapters::dns {
namespace {

using domain::ErrorCode;
using domain::makeError;

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

}  // namespace

domain::Result<Resolver> resolverFor(const std::string& server, std::chrono::milliseconds timeout,
                                     const common::Outbound* outbound, bool recursive) {
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
  ldns_resolver_set_recursive(r.get(), recursive);
  ldns_resolver_set_dnssec(r.get(), false);
  ldns_resolver_set_fallback(r.get(), true);  // TCP when truncated
  ldns_resolver_set_random(r.get(), false);
  return r;
}

}  // namespace certsteward::adapters::dns
