// The client address of a request: the peer, unless the peer is a trusted proxy, in which case
// X-Forwarded-For is read from the right, skipping trusted hops (honoured only from
// server.trusted_proxies; none by default).
#pragma once

#include <string>
#include <vector>

namespace certsteward::adapters::http {

// Whether `ip` (v4 or v6 text) lies in `cidr` ("10.0.0.0/8", "::1/128", or a bare address).
bool inCidr(const std::string& ip, const std::string& cidr);

std::string clientIp(const std::string& peer, const std::string& forwardedFor,
                     const std::vector<std::string>& trusted);

}  // namespace certsteward::adapters::http
