// PythonStandIn: what every provider stand-in's C++ side shares. Its script
// (tests/support/<script>, under Debian's python3) is started on 127.0.0.1 with its API port,
// its DNS responder's port and the script's own arguments; it is ready once it logs
// "listening". Its /__standin/ control paths are POSTed to (control) and read as "name: count"
// (counted). Stopped and removed by the destructor.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <certsteward/adapters/common/http_client.hpp>
#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class PythonStandIn : public LocalServer {
 public:
  std::string dnsAddress() const { return "127.0.0.1:" + std::to_string(dnsPort_); }
  std::string log() const { return readLog(dir_ / "standin.log"); }

 protected:
  // `what`: the stand-in's name in a failure ("the Hetzner stand-in"). Its directory is made
  // here unless the stand-in made it first (for files its arguments name).
  void launch(const std::string& what, const std::string& script, std::vector<std::string> args) {
    if (!std::filesystem::exists("/usr/bin/python3")) {
      reason_ = "python3 is not installed";
      return;
    }
    if (dir_.empty()) dir_ = freshServerDir(script.substr(0, script.find('_')));
    port_ = freeLoopbackPort();
    dnsPort_ = freeLoopbackPort();
    std::vector<std::string> argv{"/usr/bin/python3",
                                  std::string(CERTSTEWARD_SOURCE_DIR) + "/tests/support/" + script,
                                  std::to_string(port_), std::to_string(dnsPort_)};
    argv.insert(argv.end(), args.begin(), args.end());
    pid_ = spawnLogged(argv, dir_ / "standin.log");
    reason_ = waitUntilReady(pid_, dir_ / "standin.log", what, [](const std::string& text) {
      return text.find("listening") != std::string::npos;
    });
  }

  std::string base() const { return "http://127.0.0.1:" + std::to_string(port_); }

  void control(const std::string& what, const std::string& body) const {
    adapters::common::HttpRequest request;
    request.url = base() + "/__standin/" + what;
    request.body = body;
    (void)adapters::common::postHttp(request);
  }

  // The number the control path `what` answers ("{"what": N}"); -1 when it cannot be read.
  int counted(const std::string& what) const {
    adapters::common::HttpRequest request;
    request.url = base() + "/__standin/" + what;
    const auto answer = adapters::common::getHttp(request);
    if (!answer || answer->status != 200) return -1;
    const auto at = answer->body.find(':');
    return at == std::string::npos ? -1 : std::atoi(answer->body.c_str() + at + 1);
  }

 private:
  int dnsPort_ = 0;
};

}  // namespace certsteward::testing
