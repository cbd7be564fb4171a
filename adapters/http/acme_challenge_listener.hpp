// The plain-HTTP listener of `acme.http01_listen` (RFC 8555 8.3): a GET of
// /.well-known/acme-challenge/<token> is answered 200 with the key authorization `lookup` finds
// for that token (shared by every instance through the store), and 404 when there is none.
// Nothing else is served on it but the transport's /healthz and /readyz: other paths are 404,
// other methods 405. A store that does not answer is 503, never an internal detail.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <certsteward/adapters/http/http_server.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::adapters::http {

using ChallengeLookup =
    std::function<domain::Result<std::optional<std::string>>(const std::string& token)>;

HttpApplication acmeChallengeResponder(ChallengeLookup lookup);

}  // namespace certsteward::adapters::http
