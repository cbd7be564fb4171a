// CaProviderService: the CAs this instance can issue from, as GET /ca-providers lists them — the
// issuer it was built with and the DNS providers its configuration allows (DNS-01 needs one).
#pragma once

#include <string>
#include <vector>

#include <certsteward/domain/result.hpp>
#include <certsteward/ports/dns_provider_factory.hpp>
#include <certsteward/ports/issuer.hpp>
#include <certsteward/services/access_control.hpp>

namespace certsteward::services {

struct CaProviderView {
  ports::IssuerInfo issuer;
  std::vector<ports::DnsProviderKind> dns_providers;
  bool available = false;  // at least one DNS provider can be driven
};

class CaProviderService {
 public:
  struct Ports {
    const ports::Issuer& issuer;
    const ports::DnsProviderFactory& dnsProviders;
  };
  CaProviderService(Ports ports, const AccessControl& access) : p_(ports), access_(access) {}

  // Every member of the organisation may read it; none when the build has no issuer.
  domain::Result<std::vector<CaProviderView>> list(const Principal& who) const;

 private:
  Ports p_;
  const AccessControl& access_;
};

}  // namespace certsteward::services
