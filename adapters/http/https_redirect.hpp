// The plain-HTTP listener beside a TLS one only redirects: every request is answered 308 to the
// same path and query on https://, at the host the client asked for (when it is a plain host
// name or address; otherwise `fallbackHost`) and `httpsPort`. Nothing else is served on it but
// the transport's /healthz and /readyz.
#pragma once

#include <cstdint>
#include <string>

#include <certsteward/adapters/http/http_server.hpp>

namespace certsteward::adapters::http {

// The Location for `request`; exposed for its tests.
std::string httpsLocation(const HttpRequest& request, const std::string& fallbackHost,
                          std::uint16_t httpsPort);

HttpApplication httpsRedirect(std::string fallbackHost, std::uint16_t httpsPort);

}  // namespace certsteward::adapters::http
