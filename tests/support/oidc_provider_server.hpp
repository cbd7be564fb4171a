// OidcProviderServer: the npm oidc-provider (ui/tests/oidc-provider.mjs, installed with the UI's
// packages) started by a test on 127.0.0.1 at a free port, for a client whose callback is
// `redirectUri`; stopped and removed by the destructor. available() is false, with a reason,
// when node or the package is missing.
#pragma once

#include <filesystem>
#include <string>

#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class OidcProviderServer : public LocalServer {
 public:
  static constexpr const char* kClientId = "certsteward";
  static constexpr const char* kClientSecret = "test-client-secret";

  OidcProviderServer(const std::filesystem::path& sourceDir, const std::string& redirectUri) {
    const auto script = sourceDir / "ui/tests/oidc-provider.mjs";
    if (!std::filesystem::exists("/usr/bin/node") ||
        !std::filesystem::exists(sourceDir / "ui/node_modules/oidc-provider/package.json")) {
      reason_ = "node or the oidc-provider package is missing (the UI build installs it)";
      return;
    }
    dir_ = freshServerDir("oidc-provider");
    port_ = freeLoopbackPort();
    pid_ = spawnLogged({"/usr/bin/node", script.string(), std::to_string(port_), redirectUri},
                       dir_ / "provider.log");
    reason_ = waitUntilReady(
        pid_, dir_ / "provider.log", "oidc-provider",
        [](const std::string& log) { return log.find("listening on") != std::string::npos; });
  }

  std::string issuer() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::string log() const { return readLog(dir_ / "provider.log"); }
};

}  // namespace certsteward::testing
