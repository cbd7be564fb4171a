// The client address of a request: the peer, unless the peer is a trusted proxy, in which case
// X-Forwarded-For is read from the right, skipping trusted hops (honoured only from
// server.trusted_proxies; none by default). Addresses and ranges are the domain's
// (domain/outbound.hpp), parsed once when the server starts.
#pragma once

#include <string>
#include <vector>

#include <certsteward/domain/outbound.hpp>

namespace certsteward::adapters::http {

std::string clientIp(const std::string& peer, const std::string& forwardedFor,
                     const std::vector<domain::Cidr>& trusted);

}  // namespace certsteward::adapters::http
