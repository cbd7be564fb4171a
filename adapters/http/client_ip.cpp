// The X-Forwarded-For walk over the trusted ranges.
#include <certsteward/adapters/http/client_ip.hpp>

#include <algorithm>

namespace certsteward::adapters::http {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

bool trustedPeer(const std::string& ip, const std::vector<domain::Cidr>& trusted) {
  const auto address = domain::parseIpAddress(ip);
  return address && std::any_of(trusted.begin(), trusted.end(),
                                [&](const domain::Cidr& c) { return c.contains(*address); });
}

}  // namespace

std::string clientIp(const std::string& peer, const std::string& forwardedFor,
                     const std::vector<domain::Cidr>& trusted) {
  if (forwardedFor.empty() || !trustedPeer(peer, trusted)) return peer;
  std::vector<std::string> hops;
  std::size_t start = 0;
  while (start <= forwardedFor.size()) {
    const std::size_t comma = std::min(forwardedFor.find(',', start), forwardedFor.size());
    hops.push_back(trim(forwardedFor.substr(start, comma - start)));
    start = comma + 1;
  }
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    if (!domain::parseIpAddress(*it)) return peer;  // garbage in the header: trust only the peer
    if (!trustedPeer(*it, trusted)) return *it;
  }
  return hops.front();
}

}  // namespace certsteward::adapters::http
