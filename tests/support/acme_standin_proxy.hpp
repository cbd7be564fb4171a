// AcmeStandInProxy: tests/support/acme_standin_proxy.py in front of a real Pebble, adding what
// Pebble 2.4 lacks and checking how the client uses it: `meta.profiles` (draft-ietf-acme-profiles;
// a profile not listed is refused invalidProfile), `renewalInfo` with Retry-After (RFC 9773; a
// `replaces` that does not name a certificate this account got through the proxy is refused and
// recorded as a violation), and `rateLimited` answers with Retry-After when armed. Everything else
// is Pebble's own (the proxy keeps the Host header, so every URL Pebble hands out is the
// proxy's). HTTPS with a certificate of its own: trust caFile(). See acme_standin_proxy.md.
#pragma once

#include <boost/json.hpp>

#include <fstream>
#include <string>
#include <vector>

#include <certsteward/adapters/common/http_client.hpp>
#include "support/child_process.hpp"
#include "support/free_port.hpp"
#include "support/pebble_server.hpp"
#include "support/test_certificates.hpp"

namespace certsteward::testing {

class AcmeStandInProxy : public LocalServer {
 public:
  explicit AcmeStandInProxy(const PebbleServer& upstream) {
    if (!std::filesystem::exists("/usr/bin/python3")) {
      reason_ = "python3 is not installed";
      return;
    }
    dir_ = freshServerDir("acmeproxy");
    port_ = freeLoopbackPort();
    const auto tls = makeTestMaterial("localhost", "DNS:localhost,IP:127.0.0.1");
    ca_ = tls.chain_pem;
    std::ofstream(dir_ / "ca.pem") << tls.chain_pem;
    std::ofstream(dir_ / "cert.pem") << tls.certificate_pem;
    std::ofstream(dir_ / "key.pem") << tls.private_key_pem;
    pid_ = spawnLogged({"/usr/bin/python3",
                        std::string(CERTSTEWARD_SOURCE_DIR) + "/tests/support/acme_standin_proxy.py",
                        std::to_string(port_), "0", "--upstream",
                        "https://127.0.0.1:" + std::to_string(upstream.port()), "--cert",
                        (dir_ / "cert.pem").string(), "--key", (dir_ / "key.pem").string(),
                        "--upstream-ca", upstream.caFile()},
                       dir_ / "proxy.log");
    reason_ = waitUntilReady(pid_, dir_ / "proxy.log", "the ACME stand-in proxy",
                             [](const std::string& text) {
                               return text.find("listening") != std::string::npos;
                             });
  }

  std::string directoryUrl() const { return base() + "/dir"; }
  std::string caFile() const { return (dir_ / "ca.pem").string(); }
  const std::string& caPem() const { return ca_; }
  std::string log() const { return readLog(dir_ / "proxy.log"); }

  // POST /__standin/<what> with a JSON body; whether it was taken.
  bool control(const std::string& what, const std::string& body) const {
    auto request = controlRequest(what);
    request.body = body;
    const auto answer = adapters::common::postHttp(request);
    return answer && answer->status == 200;
  }
  // GET /__standin/<what>, parsed (null when it cannot be read).
  boost::json::value read(const std::string& what) const {
    const auto answer = adapters::common::getHttp(controlRequest(what));
    if (!answer || answer->status != 200) return nullptr;
    boost::system::error_code ec;
    auto parsed = boost::json::parse(answer->body, ec);
    return ec ? boost::json::value(nullptr) : parsed;
  }
  // What the proxy found wrong in what the client sent (empty: nothing).
  std::vector<std::string> violations() const {
    std::vector<std::string> out;
    const auto body = read("violations");
    if (!body.is_object()) return {"the violations could not be read"};
    for (const auto& v : body.at("violations").as_array())
      out.emplace_back(v.as_string());
    return out;
  }
  // Every newOrder received: {"profile", "replaces", "status"}.
  boost::json::array orders() const {
    const auto body = read("orders");
    return body.is_object() ? body.at("orders").as_array() : boost::json::array();
  }

 private:
  std::string base() const { return "https://127.0.0.1:" + std::to_string(port_); }
  adapters::common::HttpRequest controlRequest(const std::string& what) const {
    adapters::common::HttpRequest request;
    request.url = base() + "/__standin/" + what;
    request.ca_pem = ca_;
    request.headers = {"Content-Type: application/json"};
    request.response_limit = 1024 * 1024;
    return request;
  }

  std::string ca_;
};

}  // namespace certsteward::testing
