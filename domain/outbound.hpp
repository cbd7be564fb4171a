// The outbound policy: which addresses a connection aimed by a project's settings (webhook
// distribution, notification channels, their tests) may reach. Refused unless the operator
// allows them (network.outbound_allow, a CIDR list): loopback, link-local (cloud metadata
// among them), private, unique-local, CGNAT, multicast, unspecified, broadcast and the other
// special-purpose ranges, in every spelling (decimal, hex or octal IPv4 parts as inet_aton
// reads them, IPv4-mapped, -compatible, NAT64 and 6to4 IPv6) — a name is checked by the
// addresses it resolves to, by the adapter that connects (adapters/common/outbound.hpp).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace certsteward::domain {

// An IPv4 or IPv6 address; IPv4 as 16 bytes in ::ffff:0:0/96 with v4 set.
struct IpAddress {
  std::array<std::uint8_t, 16> bytes{};
  bool v4 = false;
  friend bool operator==(const IpAddress&, const IpAddress&) = default;
};

// An address in the strict text forms (dotted quad, RFC 4291 IPv6 without a zone), nullopt
// otherwise.
std::optional<IpAddress> parseIpAddress(std::string_view text);
// An address literal as a resolver would read a URL's host: the strict forms, "[v6]", and IPv4
// in one to four parts, each decimal, 0x hex or 0 octal ("2130706433", "0x7f.1", "0177.0.0.1",
// "127.1"); nullopt when `host` is a name.
std::optional<IpAddress> parseAddressLiteral(std::string_view host);
// "192.0.2.1" or "2001:db8::1" (IPv4 written as IPv4).
std::string formatIpAddress(const IpAddress& address);

struct Cidr {
  IpAddress base;  // with the bits past the prefix cleared
  int bits = 0;    // 0..32 for IPv4, 0..128 for IPv6
  bool contains(const IpAddress& address) const;
};
// "10.0.0.0/8", "fd00::/8" or a bare address (a /32 or /128); nullopt when malformed.
std::optional<Cidr> parseCidr(std::string_view text);

enum class AddressClass {
  global,         // anything else: reachable by default
  unspecified,    // 0.0.0.0/8, ::
  loopback,       // 127.0.0.0/8, ::1
  link_local,     // 169.254.0.0/16 (cloud metadata), fe80::/10
  private_range,  // 10/8, 172.16/12, 192.168/16
  unique_local,   // fc00::/7
  cgnat,          // 100.64.0.0/10
  multicast,      // 224.0.0.0/4, ff00::/8
  reserved,       // 240/4, broadcast, 192.0.0/24, 198.18/15, documentation ranges, site-local
};
// The class of `address`; an IPv6 address that embeds an IPv4 one (mapped ::ffff:0:0/96,
// compatible ::/96, NAT64 64:ff9b::/96, 6to4 2002::/16) is the embedded address's class.
AddressClass classify(const IpAddress& address);
std::string_view nameOf(AddressClass kind);

class OutboundPolicy {
 public:
  OutboundPolicy() = default;
  explicit OutboundPolicy(std::vector<Cidr> allowed) : allowed_(std::move(allowed)) {}
  // Every global address, and any address inside one of the operator's allowed ranges.
  bool permits(const IpAddress& address) const;
  const std::vector<Cidr>& allowed() const { return allowed_; }

 private:
  std::vector<Cidr> allowed_;
};

}  // namespace certsteward::domain
