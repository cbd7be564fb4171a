// StaticSite: the web UI served from the embedded bundle on the API's own origin. Fingerprinted
// assets are cached for a year; index.html is never cached and answers every other path that
// is not under /api/ (the app's client-side routes). Every answer carries the UI's security
// headers (a strict Content-Security-Policy without inline script, no framing).
#pragma once

#include <map>
#include <span>
#include <string>
#include <string_view>

#include <certsteward/adapters/http/compression.hpp>
#include <certsteward/adapters/http/http_types.hpp>
#include <certsteward/adapters/webui/embedded_assets.hpp>

namespace certsteward::adapters::webui {

// The Content-Security-Policy of every UI answer.
inline constexpr std::string_view kContentSecurityPolicy =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "font-src 'self'; connect-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors 'none'";

class StaticSite {
 public:
  explicit StaticSite(std::span<const EmbeddedAsset> assets);

  // Whether there is a UI to serve (built with it).
  bool available() const noexcept { return index_ != nullptr; }

  // A GET or HEAD of a UI path: the asset, or index.html for an unknown path outside /assets/
  // (a client-side route); 404 for an unknown asset; 405 for another method. Without a UI,
  // every path answers a JSON 404 as before.
  http::HttpResponse serve(const http::HttpRequest& request) const;

 private:
  http::HttpResponse answer(const EmbeddedAsset& asset, const http::HttpRequest& request,
                            int status = 200) const;

  std::map<std::string_view, const EmbeddedAsset*, std::less<>> byPath_;
  const EmbeddedAsset* index_ = nullptr;
};

// Whether an Accept-Encoding value accepts gzip (q=0 refuses it): the transport's rule.
using http::acceptsGzip;

}  // namespace certsteward::adapters::webui
