// The ldns pieces the DNS adapters share (RFC 2136 updates, TXT and CNAME lookups): owning
// pointers for ldns' objects and a resolver aimed at one server. Included only by sources in
// adapters/dns (it brings ldns).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/domain/result.hpp>

// Last: ldns' headers redefine `bool` for C, which breaks standard headers included after them.
#include <ldns/ldns.h>

namespace certsteward::adapters::dns {

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

// A resolver that asks `server` ("host", "host:port", "[v6]:port"; a host name resolved once)
// alone, one try within `timeout`, over UDP with TCP when truncated, without recursion unless
// `recursive`. The numeric address is checked against `outbound` when given.
domain::Result<Resolver> resolverFor(const std::string& server, std::chrono::milliseconds timeout,
                                     const common::Outbound* outbound, bool recursive = false);

}  // namespace certsteward::adapters::dns
