// The transport's request and response (adapters/http/http_types.hpp), the only part of the
// transport the REST API sees.
#pragma once

#include <certsteward/adapters/http/http_types.hpp>

namespace certsteward::adapters::rest {

using http::HttpRequest;
using http::HttpResponse;
using http::SetCookie;

}  // namespace certsteward::adapters::rest
