// The web UI's files as compiled into the binary: generated at build time from the bundle in
// ui/ (see ui/build.mjs), or an empty table when the server is built without the UI.
#pragma once

#include <span>
#include <string_view>

namespace certsteward::adapters::webui {

struct EmbeddedAsset {
  std::string_view path;          // "/index.html", "/assets/app-3f9c1a2b.js"
  std::string_view content_type;  // "text/javascript; charset=utf-8"
  std::string_view body;
  std::string_view gzip;   // the same bytes gzip-compressed; empty when not worth it
  bool immutable = false;  // a fingerprinted name: its content never changes
};

// Every file of the UI bundle; empty when built with CERTSTEWARD_BUILD_UI=OFF.
std::span<const EmbeddedAsset> embeddedAssets() noexcept;

}  // namespace certsteward::adapters::webui
