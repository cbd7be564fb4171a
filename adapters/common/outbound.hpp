// The outbound policy at the point of connection (domain/outbound.hpp says what it refuses):
// a host is an address literal in any spelling, or a name whose every resolved address must be
// permitted; the connection then goes to exactly the addresses that were checked (libcurl is
// pinned to them and refuses any other socket), so a DNS answer that changes in between —
// rebinding — cannot slip past. Errors never say why a connection failed beyond one phrase;
// the detail goes to the server log.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <certsteward/domain/outbound.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::adapters::common {

// The reason of a refusal by the policy.
inline constexpr const char* kOutboundRefused = "OUTBOUND_REFUSED";

// Name resolution (the system's getaddrinfo; a stand-in in tests).
class HostResolver {
 public:
  virtual ~HostResolver() = default;
  // Every address `host` has; unavailable when it has none.
  virtual domain::Result<std::vector<domain::IpAddress>> resolve(const std::string& host) = 0;
};

std::shared_ptr<HostResolver> systemResolver();

class Outbound {
 public:
  explicit Outbound(domain::OutboundPolicy policy,
                    std::shared_ptr<HostResolver> resolver = systemResolver())
      : policy_(std::move(policy)), resolver_(std::move(resolver)) {}

  // The addresses a connection to `host` ("[v6]" allowed) may use: the literal, or what the
  // name resolves to. failed_precondition (reason OUTBOUND_REFUSED) when any of them is refused;
  // unavailable ("could not connect to <host>") when the name does not resolve.
  domain::Result<std::vector<domain::IpAddress>> addressesOf(const std::string& host) const;
  const domain::OutboundPolicy& policy() const { return policy_; }

 private:
  domain::OutboundPolicy policy_;
  std::shared_ptr<HostResolver> resolver_;
};

// The one phrase of every connection failure towards `hostPort`, whatever its cause (refused,
// silent, not the expected protocol, broken, timed out): answers must not map a network.
std::string couldNotConnect(const std::string& hostPort);

// Writes the detail of an outbound failure to the server log (warn), never to an answer.
void logOutboundDetail(const std::string& hostPort, const std::string& detail);

// A libcurl handle limited to the checked addresses of one host: pin() adds the resolved
// addresses as the handle's only answer for host:port and installs a socket callback that
// refuses any address not among them. Lives as long as the transfer.
class CurlPin {
 public:
  CurlPin() = default;
  CurlPin(const CurlPin&) = delete;
  CurlPin& operator=(const CurlPin&) = delete;
  ~CurlPin();

  // `curl` is a CURL*; `host` as the URL names it (brackets around IPv6 allowed).
  domain::Status pin(void* curl, const Outbound& outbound, const std::string& host, long port);
  // Whether the socket callback refused an address (a lookup that changed under libcurl).
  bool refusedSocket() const { return refused_; }
  // Whether every pinned address is a loopback one.
  bool loopbackOnly() const;
  // The socket callback's test: `address` (a sockaddr) is one of the pinned addresses and the
  // policy permits it; remembers a refusal.
  bool accepts(const void* address);

 private:
  std::vector<domain::IpAddress> addresses_;
  const domain::OutboundPolicy* policy_ = nullptr;
  void* resolve_ = nullptr;  // curl_slist*
  bool refused_ = false;
};

}  // namespace certsteward::adapters::common
