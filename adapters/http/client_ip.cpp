// CIDR matching with inet_pton, and the X-Forwarded-For walk.
#include "adapters/http/client_ip.hpp"

#include <arpa/inet.h>

#include <array>
#include <charconv>
#include <cstring>

namespace certsteward::adapters::http {
namespace {

// 16 bytes (IPv4 mapped into ::ffff:0:0/96), or false when `text` is no address.
bool parse(const std::string& text, std::array<unsigned char, 16>& out, bool& v4) {
  in_addr a4{};
  in6_addr a6{};
  if (inet_pton(AF_INET, text.c_str(), &a4) == 1) {
    out.fill(0);
    out[10] = 0xff;
    out[11] = 0xff;
    std::memcpy(out.data() + 12, &a4, 4);
    v4 = true;
    return true;
  }
  if (inet_pton(AF_INET6, text.c_str(), &a6) == 1) {
    std::memcpy(out.data(), &a6, 16);
    v4 = false;
    return true;
  }
  return false;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

bool trustedPeer(const std::string& ip, const std::vector<std::string>& trusted) {
  for (const auto& cidr : trusted) {
    if (inCidr(ip, cidr)) return true;
  }
  return false;
}

}  // namespace

bool inCidr(const std::string& ip, const std::string& cidr) {
  const auto slash = cidr.find('/');
  std::array<unsigned char, 16> addr{};
  std::array<unsigned char, 16> net{};
  bool addrV4 = false;
  bool netV4 = false;
  if (!parse(ip, addr, addrV4) || !parse(cidr.substr(0, slash), net, netV4)) return false;
  int bits = netV4 ? 32 : 128;
  if (slash != std::string::npos) {
    const std::string b = cidr.substr(slash + 1);
    const auto [end, ec] = std::from_chars(b.data(), b.data() + b.size(), bits);
    if (ec != std::errc{} || bits < 0 || bits > (netV4 ? 32 : 128)) return false;
  }
  if (netV4) {
    if (!addrV4) return false;
    bits += 96;
  }
  for (int i = 0; i < 16 && bits > 0; ++i, bits -= 8) {
    const auto mask = static_cast<unsigned char>(bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff);
    if ((addr[static_cast<std::size_t>(i)] & mask) != (net[static_cast<std::size_t>(i)] & mask)) {
      return false;
    }
  }
  return true;
}

std::string clientIp(const std::string& peer, const std::string& forwardedFor,
                     const std::vector<std::string>& trusted) {
  if (forwardedFor.empty() || !trustedPeer(peer, trusted)) return peer;
  std::vector<std::string> hops;
  std::size_t start = 0;
  while (start <= forwardedFor.size()) {
    const std::size_t comma = std::min(forwardedFor.find(',', start), forwardedFor.size());
    hops.push_back(trim(forwardedFor.substr(start, comma - start)));
    start = comma + 1;
  }
  for (auto it = hops.rbegin(); it != hops.rend(); ++it) {
    std::array<unsigned char, 16> ignored{};
    bool v4 = false;
    if (!parse(*it, ignored, v4)) return peer;  // garbage in the header: trust only the peer
    if (!trustedPeer(*it, trusted)) return *it;
  }
  return hops.front();
}

}  // namespace certsteward::adapters::http
