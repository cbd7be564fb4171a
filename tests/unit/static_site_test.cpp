// The web UI's static site: what is served, cached, compressed, and which headers protect it.
#include <doctest/doctest.h>

#include <array>
#include <string>

#include <certsteward/adapters/webui/embedded_assets.hpp>
#include <certsteward/adapters/webui/static_site.hpp>

namespace {

using certsteward::adapters::http::HttpRequest;
using certsteward::adapters::http::HttpResponse;
using certsteward::adapters::webui::acceptsGzip;
using certsteward::adapters::webui::EmbeddedAsset;
using certsteward::adapters::webui::embeddedAssets;
using certsteward::adapters::webui::StaticSite;

const std::array<EmbeddedAsset, 3> kAssets{{
    {"/index.html", "text/html; charset=utf-8", "<html>app</html>", "GZ-INDEX", false},
    {"/assets/app-ABC123.js", "text/javascript; charset=utf-8", "console.log(1)", "GZ-JS", true},
    {"/favicon.svg", "image/svg+xml", "<svg/>", "", false},
}};

HttpRequest get(std::string path, std::string acceptEncoding = {}) {
  HttpRequest r;
  r.method = "GET";
  r.path = std::move(path);
  if (!acceptEncoding.empty()) r.headers["accept-encoding"] = std::move(acceptEncoding);
  return r;
}

std::string header(const HttpResponse& r, const std::string& name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return {};
}

}  // namespace

TEST_CASE("static site: paths, client-side routes and unknown assets") {
  const StaticSite site{kAssets};
  REQUIRE(site.available());

  struct Row {
    const char* path;
    int status;
    const char* body;
  };
  const Row rows[] = {
      {"/", 200, "<html>app</html>"},
      {"/index.html", 200, "<html>app</html>"},
      {"/assets/app-ABC123.js", 200, "console.log(1)"},
      {"/favicon.svg", 200, "<svg/>"},
      {"/p/0123/certificates", 200, "<html>app</html>"},  // a client-side route
      {"/login", 200, "<html>app</html>"},
      {"/assets/app-OLD.js", 404, "not found\n"},  // stale asset: never the app's HTML
      {"/assets/../index.html", 404, "not found\n"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.path);
    const auto r = site.serve(get(row.path));
    CHECK(r.status == row.status);
    CHECK(r.body == row.body);
  }
}

TEST_CASE("static site: caching and compression") {
  const StaticSite site{kAssets};
  const auto index = site.serve(get("/"));
  CHECK(index.content_type == "text/html; charset=utf-8");
  CHECK(header(index, "Cache-Control") == "no-cache");

  const auto js = site.serve(get("/assets/app-ABC123.js", "gzip, deflate, br"));
  CHECK(js.body == "GZ-JS");
  CHECK(header(js, "Content-Encoding") == "gzip");
  CHECK(header(js, "Vary") == "Accept-Encoding");
  CHECK(header(js, "Cache-Control") == "public, max-age=31536000, immutable");

  const auto plain = site.serve(get("/assets/app-ABC123.js"));
  CHECK(plain.body == "console.log(1)");
  CHECK(header(plain, "Content-Encoding").empty());

  const auto refused = site.serve(get("/assets/app-ABC123.js", "gzip;q=0, identity"));
  CHECK(refused.body == "console.log(1)");

  const auto svg = site.serve(get("/favicon.svg", "gzip"));  // no compressed form
  CHECK(svg.body == "<svg/>");
  CHECK(header(svg, "Content-Encoding").empty());
}

TEST_CASE("static site: every answer carries the security headers") {
  const StaticSite site{kAssets};
  for (const char* path : {"/", "/assets/app-ABC123.js", "/assets/missing.js", "/some/route"}) {
    CAPTURE(path);
    const auto r = site.serve(get(path));
    const auto csp = header(r, "Content-Security-Policy");
    CHECK(csp.find("default-src 'self'") != std::string::npos);
    CHECK(csp.find("script-src 'self'") != std::string::npos);
    CHECK(csp.find("unsafe-inline") == std::string::npos);
    CHECK(csp.find("frame-ancestors 'none'") != std::string::npos);
    CHECK(header(r, "X-Content-Type-Options") == "nosniff");
    CHECK(header(r, "Referrer-Policy") == "no-referrer");
    CHECK(header(r, "X-Frame-Options") == "DENY");
  }
}

TEST_CASE("static site: methods other than GET and HEAD") {
  const StaticSite site{kAssets};
  auto post = get("/");
  post.method = "POST";
  const auto r = site.serve(post);
  CHECK(r.status == 405);
  CHECK(header(r, "Allow") == "GET, HEAD");
  auto head = get("/assets/app-ABC123.js");
  head.method = "HEAD";
  CHECK(site.serve(head).status == 200);
}

TEST_CASE("static site: without a UI every path is the JSON 404 of before") {
  const StaticSite site{std::span<const EmbeddedAsset>{}};
  CHECK_FALSE(site.available());
  const auto r = site.serve(get("/"));
  CHECK(r.status == 404);
  CHECK(r.content_type == "application/json");
  CHECK(r.body == R"({"error":"not found"})");
}

TEST_CASE("static site: the embedded bundle has an index that loads fingerprinted assets") {
  const StaticSite site{embeddedAssets()};
  if (!site.available()) {
    MESSAGE("built without the UI (CERTSTEWARD_BUILD_UI=OFF)");
    return;
  }
  const auto index = site.serve(get("/"));
  CHECK(index.body.find("<script type=\"module\" src=\"/assets/app-") != std::string::npos);
  // No inline script (the CSP forbids it): every <script tag loads a file.
  std::size_t tags = 0;
  for (auto at = index.body.find("<script"); at != std::string::npos;
       at = index.body.find("<script", at + 1)) {
    ++tags;
    const auto end = index.body.find('>', at);
    REQUIRE(end != std::string::npos);
    CHECK(index.body.substr(at, end - at).find(" src=\"/assets/") != std::string::npos);
    CHECK(index.body.compare(end + 1, 9, "</script>") == 0);
  }
  CHECK(tags == 1);
  CHECK(index.body.find(" style=") == std::string::npos);
  for (const auto& asset : embeddedAssets()) {
    CAPTURE(asset.path);
    if (asset.path.starts_with("/assets/")) {
      CHECK(asset.immutable);
      CHECK(index.body.find(asset.path) != std::string_view::npos);
    }
  }
}

TEST_CASE("accept-encoding parsing") {
  CHECK(acceptsGzip("gzip"));
  CHECK(acceptsGzip("GZIP"));
  CHECK(acceptsGzip("br, gzip;q=0.5"));
  CHECK(acceptsGzip("*"));
  CHECK_FALSE(acceptsGzip("gzip;q=0"));
  CHECK_FALSE(acceptsGzip("gzip; q=0.000"));
  CHECK_FALSE(acceptsGzip("identity"));
  CHECK_FALSE(acceptsGzip("xgzip"));
  CHECK_FALSE(acceptsGzip("*;q=1, gzip;q=0"));  // an explicit gzip overrides *
  CHECK(acceptsGzip("*;q=0, gzip"));
  CHECK_FALSE(acceptsGzip("gzip;foo=1;q=0"));
  CHECK(acceptsGzip("gzip;q=0.001"));
  CHECK_FALSE(acceptsGzip(""));
}
