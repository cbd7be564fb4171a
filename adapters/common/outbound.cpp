// The outbound policy applied where connections start: resolution, pinning libcurl to the
// checked addresses, and the one phrase of a failed connection.
#include <certsteward/adapters/common/outbound.hpp>

#include <arpa/inet.h>
#include <curl/curl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

namespace certsteward::adapters::common {

using domain::ErrorCode;
using domain::IpAddress;
using domain::makeError;

namespace {

class SystemResolver : public HostResolver {
 public:
  domain::Result<std::vector<IpAddress>> resolve(const std::string& host) override {
    addrinfo hints{};
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* found = nullptr;
    const int rc = ::getaddrinfo(host.c_str(), nullptr, &hints, &found);
    if (rc != 0) {
      return makeError(ErrorCode::unavailable,
                       "cannot resolve " + host + ": " + ::gai_strerror(rc));
    }
    std::vector<IpAddress> out;
    for (auto* a = found; a != nullptr; a = a->ai_next) {
      if (auto address = fromSockaddr(a->ai_addr)) {
        if (std::find(out.begin(), out.end(), *address) == out.end()) out.push_back(*address);
      }
    }
    ::freeaddrinfo(found);
    if (out.empty()) return makeError(ErrorCode::unavailable, host + " has no address");
    return out;
  }

  static std::optional<IpAddress> fromSockaddr(const sockaddr* sa) {
    char text[INET6_ADDRSTRLEN] = {};
    if (sa->sa_family == AF_INET) {
      ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, text, sizeof text);
    } else if (sa->sa_family == AF_INET6) {
      ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, text,
                  sizeof text);
    } else {
      return std::nullopt;
    }
    return domain::parseIpAddress(text);
  }
};

std::string withoutBrackets(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    return host.substr(1, host.size() - 2);
  return host;
}

std::string refusal(const std::string& host, const IpAddress& address, bool literal) {
  const std::string kind(domain::nameOf(domain::classify(address)));
  return host + (literal ? " is a " : " resolves to a ") + kind +
         " address, which the server's outbound policy does not allow (network.outbound_allow)";
}

}  // namespace

std::shared_ptr<HostResolver> systemResolver() {
  static const auto resolver = std::make_shared<SystemResolver>();
  return resolver;
}

domain::Result<std::vector<IpAddress>> Outbound::addressesOf(const std::string& host) const {
  if (const auto literal = domain::parseAddressLiteral(host)) {
    if (!policy_.permits(*literal)) {
      return makeError(ErrorCode::failed_precondition, refusal(host, *literal, true),
                       kOutboundRefused);
    }
    return std::vector<IpAddress>{*literal};
  }
  auto found = resolver_->resolve(withoutBrackets(host));
  if (!found) {
    logOutboundDetail(host, found.error().message);
    return makeError(ErrorCode::unavailable, couldNotConnect(host));
  }
  for (const auto& address : *found) {
    if (!policy_.permits(address)) {
      return makeError(ErrorCode::failed_precondition, refusal(host, address, false),
                       kOutboundRefused);
    }
  }
  return found;
}

std::string couldNotConnect(const std::string& hostPort) {
  return "could not connect to " + hostPort + " (the server log says why)";
}

void logOutboundDetail(const std::string& hostPort, const std::string& detail) {
  spdlog::warn("outbound connection to {} failed: {}", hostPort, detail);
}

CurlPin::~CurlPin() {
  curl_slist_free_all(static_cast<curl_slist*>(resolve_));
}

namespace {

curl_socket_t openPinned(void* self, curlsocktype purpose, curl_sockaddr* address) {
  if (purpose != CURLSOCKTYPE_IPCXN || !static_cast<CurlPin*>(self)->accepts(&address->addr)) {
    return CURL_SOCKET_BAD;
  }
  return ::socket(address->family, address->socktype | SOCK_CLOEXEC, address->protocol);
}

}  // namespace

domain::Status CurlPin::pin(void* handle, const Outbound& outbound, const std::string& host,
                            long port) {
  auto addresses = outbound.addressesOf(host);
  if (!addresses) return addresses.error();
  addresses_ = std::move(*addresses);
  policy_ = &outbound.policy();
  CURL* curl = static_cast<CURL*>(handle);
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, openPinned);
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, this);
  // An address literal is connected to as written (the socket callback checks it); a name gets
  // "host:port:addr,addr" as the handle's only answer.
  if (domain::parseAddressLiteral(host)) return {};
  std::string entry = withoutBrackets(host) + ":" + std::to_string(port) + ":";
  for (std::size_t i = 0; i < addresses_.size(); ++i) {
    const std::string text = domain::formatIpAddress(addresses_[i]);
    entry += (i == 0 ? "" : ",") + (addresses_[i].v4 ? text : "[" + text + "]");
  }
  resolve_ = curl_slist_append(static_cast<curl_slist*>(resolve_), entry.c_str());
  curl_easy_setopt(curl, CURLOPT_RESOLVE, static_cast<curl_slist*>(resolve_));
  return {};
}

bool CurlPin::loopbackOnly() const {
  return !addresses_.empty() && std::all_of(addresses_.begin(), addresses_.end(), [](auto& a) {
    return domain::classify(a) == domain::AddressClass::loopback;
  });
}

bool CurlPin::accepts(const void* address) {
  const auto found = SystemResolver::fromSockaddr(static_cast<const sockaddr*>(address));
  const bool ok = found && policy_ != nullptr && policy_->permits(*found) &&
                  std::find(addresses_.begin(), addresses_.end(), *found) != addresses_.end();
  if (!ok) refused_ = true;
  return ok;
}

}  // namespace certsteward::adapters::common
