// ACME Renewal Information (RFC 9773): the identifier a CA knows a certificate by, the
// suggested renewal window it answers with, and the moment inside the window this client
// picks. Pure functions; AcmeIssuer does the HTTP.
#pragma once

#include <string>
#include <string_view>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::acme {

struct RenewalWindow {
  domain::Timestamp start{};
  domain::Timestamp end{};
  std::string explanation_url;  // empty when the CA gave none
};

// base64url(keyIdentifier of the Authority Key Identifier) "." base64url(serial content
// octets), both raw bytes (RFC 9773 4.1).
std::string ariCertId(std::string_view authorityKeyId, std::string_view serialContent);

// The same for a PEM certificate. invalid_argument when it is not one, failed_precondition when
// it carries no Authority Key Identifier key id.
domain::Result<std::string> ariCertId(std::string_view certificatePem);

// The body of a renewalInfo response. invalid_argument unless it has a suggestedWindow whose
// start and end are RFC 3339 instants with end after start.
domain::Result<RenewalWindow> parseRenewalInfo(std::string_view body);

// The instant `fraction` (0 <= fraction < 1, uniformly random in use) of the way through the
// window, so clients of one CA do not all renew at its start.
domain::Timestamp pickRenewalTime(const RenewalWindow& window, double fraction);

}  // namespace certsteward::adapters::acme
