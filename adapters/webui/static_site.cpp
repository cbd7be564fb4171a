// Serving the embedded UI bundle.
#include <certsteward/adapters/webui/static_site.hpp>

#include <optional>

#include <certsteward/domain/text.hpp>

namespace certsteward::adapters::webui {
namespace {

void securityHeaders(http::HttpResponse& r) {
  r.headers.emplace_back("Content-Security-Policy", std::string(kContentSecurityPolicy));
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.headers.emplace_back("Referrer-Policy", "no-referrer");
  r.headers.emplace_back("X-Frame-Options", "DENY");
  r.headers.emplace_back("Cross-Origin-Opener-Policy", "same-origin");
  r.headers.emplace_back("Permissions-Policy", "camera=(), microphone=(), geolocation=()");
}

http::HttpResponse plain(int status, std::string body) {
  http::HttpResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  r.headers.emplace_back("Cache-Control", "no-store");
  securityHeaders(r);
  return r;
}

}  // namespace

StaticSite::StaticSite(std::span<const EmbeddedAsset> assets) {
  for (const auto& asset : assets) {
    byPath_.emplace(asset.path, &asset);
    if (asset.path == "/index.html") index_ = &asset;
  }
}

http::HttpResponse StaticSite::answer(const EmbeddedAsset& asset, const http::HttpRequest& request,
                                      int status) const {
  http::HttpResponse r;
  r.status = status;
  r.content_type = std::string(asset.content_type);
  const auto encoding = request.header("accept-encoding");
  if (!asset.gzip.empty() && encoding && acceptsGzip(*encoding)) {
    r.body = std::string(asset.gzip);
    r.headers.emplace_back("Content-Encoding", "gzip");
  } else {
    r.body = std::string(asset.body);
  }
  if (!asset.gzip.empty()) r.headers.emplace_back("Vary", "Accept-Encoding");
  r.headers.emplace_back("Cache-Control",
                         asset.immutable ? "public, max-age=31536000, immutable" : "no-cache");
  securityHeaders(r);
  return r;
}

http::HttpResponse StaticSite::serve(const http::HttpRequest& request) const {
  if (!available()) {
    http::HttpResponse r;
    r.status = 404;
    r.body = R"({"error":"not found"})";
    return r;
  }
  if (request.method != "GET" && request.method != "HEAD") {
    auto r = plain(405, "method not allowed\n");
    r.headers.emplace_back("Allow", "GET, HEAD");
    return r;
  }
  const auto found = byPath_.find(request.path);
  if (found != byPath_.end()) return answer(*found->second, request);
  // A missing file under /assets/ is a stale or mistyped asset, not a page of the app.
  if (request.path.starts_with("/assets/")) return plain(404, "not found\n");
  return answer(*index_, request);
}

}  // namespace certsteward::adapters::webui
