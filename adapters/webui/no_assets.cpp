// The asset table of a server built without the UI (CERTSTEWARD_BUILD_UI=OFF).
#include <certsteward/adapters/webui/embedded_assets.hpp>

namespace certsteward::adapters::webui {

std::span<const EmbeddedAsset> embeddedAssets() noexcept {
  return {};
}

}  // namespace certsteward::adapters::webui
