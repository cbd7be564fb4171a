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

bool acceptsGzip(std::string_view value) {
  // RFC 9110 12.5.3: an explicit "gzip" decides; otherwise "*" does; a q of 0 refuses.
  std::optional<bool> gzip;
  std::optional<bool> any;
  const std::string v = domain::asciiLower(value);
  std::string_view rest = v;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    const auto semi = item.find(';');
    const std::string_view coding = domain::trimBlanks(item.substr(0, semi));
    bool accepted = true;
    std::string_view params =
        semi == std::string_view::npos ? std::string_view{} : item.substr(semi + 1);
    while (!params.empty()) {
      const auto next = params.find(';');
      const std::string_view param = domain::trimBlanks(params.substr(0, next));
      params = next == std::string_view::npos ? std::string_view{} : params.substr(next + 1);
      if (param.starts_with("q=")) {
        // q=0, q=0.0, q=0.000 refuse; any other weight accepts.
        accepted = param.substr(2).find_first_not_of("0.") != std::string_view::npos;
      }
    }
    if (coding == "gzip") gzip = gzip.value_or(false) || accepted;
    if (coding == "*") any = any.value_or(false) || accepted;
  }
  return gzip ? *gzip : any.value_or(false);
}

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
