// The outbound policy's address rules: every spelling of a refused address is refused, global
// addresses pass, and the operator's ranges open exactly what they name.
#include <doctest/doctest.h>

#include <string>

#include <certsteward/domain/outbound.hpp>

using namespace certsteward::domain;

namespace {

OutboundPolicy allowing(std::initializer_list<const char*> ranges) {
  std::vector<Cidr> out;
  for (const char* r : ranges) {
    auto cidr = parseCidr(r);
    REQUIRE_MESSAGE(cidr, r);
    out.push_back(*cidr);
  }
  return OutboundPolicy(std::move(out));
}

}  // namespace

TEST_CASE("outbound: every spelling of a special address is read as that address") {
  struct Row {
    const char* host;
    const char* address;  // as formatIpAddress writes it; nullptr: a name, not a literal
    AddressClass kind;
  };
  const Row rows[] = {
      {"127.0.0.1", "127.0.0.1", AddressClass::loopback},
      {"127.1", "127.0.0.1", AddressClass::loopback},
      {"127.0.1", "127.0.0.1", AddressClass::loopback},
      {"2130706433", "127.0.0.1", AddressClass::loopback},
      {"0x7f000001", "127.0.0.1", AddressClass::loopback},
      {"0X7F000001", "127.0.0.1", AddressClass::loopback},
      {"0x7f.0.0.1", "127.0.0.1", AddressClass::loopback},
      {"0177.0.0.1", "127.0.0.1", AddressClass::loopback},
      {"017700000001", "127.0.0.1", AddressClass::loopback},
      {"127.0.0.1.", "127.0.0.1", AddressClass::loopback},
      {"[::1]", "::1", AddressClass::loopback},
      {"::1", "::1", AddressClass::loopback},
      {"[0:0:0:0:0:0:0:1]", "::1", AddressClass::loopback},
      {"[::ffff:127.0.0.1]", "127.0.0.1", AddressClass::loopback},
      {"[::ffff:7f00:1]", "127.0.0.1", AddressClass::loopback},
      {"[0:0:0:0:0:ffff:7f00:0001]", "127.0.0.1", AddressClass::loopback},
      {"[::127.0.0.1]", "::7f00:1", AddressClass::loopback},
      {"[64:ff9b::127.0.0.1]", "64:ff9b::7f00:1", AddressClass::loopback},
      {"[2002:7f00:1::]", "2002:7f00:1::", AddressClass::loopback},
      {"169.254.169.254", "169.254.169.254", AddressClass::link_local},
      {"0xa9fea9fe", "169.254.169.254", AddressClass::link_local},
      {"2852039166", "169.254.169.254", AddressClass::link_local},
      {"[::ffff:169.254.169.254]", "169.254.169.254", AddressClass::link_local},
      {"[fd00:ec2::254]", "fd00:ec2::254", AddressClass::unique_local},
      {"[fe80::1]", "fe80::1", AddressClass::link_local},
      {"10.1.2.3", "10.1.2.3", AddressClass::private_range},
      {"012.1.2.3", "10.1.2.3", AddressClass::private_range},
      {"172.16.0.1", "172.16.0.1", AddressClass::private_range},
      {"172.31.255.255", "172.31.255.255", AddressClass::private_range},
      {"192.168.1.1", "192.168.1.1", AddressClass::private_range},
      {"3232235777", "192.168.1.1", AddressClass::private_range},
      {"100.64.0.1", "100.64.0.1", AddressClass::cgnat},
      {"100.127.255.254", "100.127.255.254", AddressClass::cgnat},
      {"224.0.0.1", "224.0.0.1", AddressClass::multicast},
      {"[ff02::1]", "ff02::1", AddressClass::multicast},
      {"0.0.0.0", "0.0.0.0", AddressClass::unspecified},
      {"0", "0.0.0.0", AddressClass::unspecified},
      {"[::]", "::", AddressClass::unspecified},
      {"255.255.255.255", "255.255.255.255", AddressClass::reserved},
      {"198.18.0.1", "198.18.0.1", AddressClass::reserved},
      {"[2001:db8::1]", "2001:db8::1", AddressClass::reserved},
      {"93.184.215.14", "93.184.215.14", AddressClass::global},
      {"172.32.0.1", "172.32.0.1", AddressClass::global},
      {"100.128.0.1", "100.128.0.1", AddressClass::global},
      {"[2606:4700::1111]", "2606:4700::1111", AddressClass::global},
      {"[::ffff:1.1.1.1]", "1.1.1.1", AddressClass::global},
  };
  const OutboundPolicy policy;
  for (const auto& row : rows) {
    CAPTURE(row.host);
    const auto address = parseAddressLiteral(row.host);
    REQUIRE(address);
    CHECK(formatIpAddress(*address) == row.address);
    CHECK(classify(*address) == row.kind);
    CHECK(policy.permits(*address) == (row.kind == AddressClass::global));
  }
}

TEST_CASE("outbound: names and malformed literals are not read as addresses") {
  for (const char* host :
       {"example.com", "127.evil.example", "localhost", "0x7g000001", "1.2.3.4.5", "256.1.1.1.1",
        "4294967296", "1.16777216", "[::1", "[1:2:3:4:5:6:7:8:9]", "[fe80::1%eth0]", "[::1::2]",
        "[:1]", "[1:]", "[12345::]", "", "1..2", "0x", "08.0.0.1"}) {
    CAPTURE(host);
    const auto address = parseAddressLiteral(host);
    // "0x" reads as 0 in inet_aton: refused anyway as unspecified.
    if (std::string(host) == "0x") {
      REQUIRE(address);
      CHECK(classify(*address) == AddressClass::unspecified);
      continue;
    }
    CHECK_FALSE(address);
  }
  // The strict form used for settings and CIDRs takes neither shortcuts nor names.
  for (const char* text : {"127.1", "2130706433", "0177.0.0.1", "[::1]", "localhost", "1.2.3.04x"})
    CHECK_FALSE(parseIpAddress(text));
  CHECK(parseIpAddress("::ffff:10.0.0.1"));
}

TEST_CASE("outbound: the operator's ranges open exactly what they name") {
  const auto policy = allowing({"127.0.0.0/8", "::1", "10.20.0.0/16", "fd12:3456::/32"});
  CHECK(policy.permits(*parseAddressLiteral("127.0.0.1")));
  CHECK(policy.permits(*parseAddressLiteral("0x7f000002")));
  CHECK(policy.permits(*parseAddressLiteral("[::ffff:127.0.0.1]")));  // the same IPv4 address
  CHECK(policy.permits(*parseAddressLiteral("[::1]")));
  CHECK(policy.permits(*parseAddressLiteral("10.20.255.1")));
  CHECK_FALSE(policy.permits(*parseAddressLiteral("10.21.0.1")));
  CHECK(policy.permits(*parseAddressLiteral("[fd12:3456:ffff::1]")));
  CHECK_FALSE(policy.permits(*parseAddressLiteral("[fd12:3457::1]")));
  CHECK_FALSE(policy.permits(*parseAddressLiteral("169.254.169.254")));
  CHECK(policy.permits(*parseAddressLiteral("8.8.8.8")));

  const auto cidr = parseCidr("10.20.30.40/16");
  REQUIRE(cidr);
  CHECK(formatIpAddress(cidr->base) == "10.20.0.0");
  CHECK(cidr->bits == 16);
  CHECK(parseCidr("0.0.0.0/0")->contains(*parseAddressLiteral("8.8.8.8")));
  CHECK_FALSE(parseCidr("0.0.0.0/0")->contains(*parseAddressLiteral("[2001::1]")));
  for (const char* bad : {"10.0.0.0/33", "::/129", "10.0.0.0/", "10.0.0.0/-1", "example.com/8",
                          "10.0.0.0/8x", "127.1/8"})
    CHECK_MESSAGE(!parseCidr(bad), bad);
}
