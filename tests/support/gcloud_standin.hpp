// GCloudStandIn: tests/support/gcloud_standin.py (under Debian's python3, with the openssl
// command) on 127.0.0.1: Google Cloud DNS v1 at apiUrl(), Google's OAuth 2.0 token endpoint at
// tokenUrl() and a DNS responder at dnsAddress(). It holds, for the project kProject, a private
// zone kPrivateZoneName for kZone (listed first, so a client must page and pick the public one),
// the public zone kZoneName for kZone and a second public zone kOtherZoneName. At start it makes
// an RSA key pair and writes the service account's key file (keyFilePath(), token_uri pointing
// at tokenUrl()) and a key file of the same account whose key Google no longer knows
// (revokedKeyFilePath()). The token endpoint checks each JWT assertion's RS256 signature with
// openssl, its iss, aud, iat/exp and scope as Google does; Cloud DNS takes only the access tokens
// it issued and refuses what the real API refuses (see the script). A change is "pending" for its
// first kPendingPolls GETs, then "done"; a TXT value becomes visible in its DNS after
// kVisibleAfter queries. Not the live service: see docs/operations.md. Stopped and removed by the
// destructor.
#pragma once

#include <filesystem>
#include <string>

#include <certsteward/adapters/common/http_client.hpp>
#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class GCloudStandIn : public LocalServer {
 public:
  static constexpr const char* kZone = "example.test.";
  static constexpr const char* kProject = "certsteward-standin";
  static constexpr const char* kZoneName = "example-test";
  static constexpr const char* kPrivateZoneName = "example-test-private";
  static constexpr const char* kOtherZoneName = "other-test";
  static constexpr const char* kClientEmail =
      "certsteward-dns@certsteward-standin.iam.gserviceaccount.com";
  static constexpr const char* kScope = "https://www.googleapis.com/auth/ndev.clouddns.readwrite";
  static constexpr int kVisibleAfter = 1;
  static constexpr int kPendingPolls = 1;

  GCloudStandIn() {
    if (!std::filesystem::exists("/usr/bin/python3")) {
      reason_ = "python3 is not installed";
      return;
    }
    if (!std::filesystem::exists("/usr/bin/openssl")) {
      reason_ = "the openssl command is not installed";
      return;
    }
    dir_ = freshServerDir("gcloud");
    port_ = freeLoopbackPort();
    dnsPort_ = freeLoopbackPort();
    pid_ = spawnLogged(
        {"/usr/bin/python3",
         std::string(CERTSTEWARD_SOURCE_DIR) + "/tests/support/gcloud_standin.py",
         std::to_string(port_), std::to_string(dnsPort_), (dir_ / "keys").string(), kProject,
         std::to_string(kVisibleAfter), std::to_string(kPendingPolls),
         std::string("example.test=") + kPrivateZoneName + "=private",
         std::string("example.test=") + kZoneName, std::string("other.test=") + kOtherZoneName},
        dir_ / "standin.log");
    reason_ = waitUntilReady(
        pid_, dir_ / "standin.log", "the Google Cloud DNS stand-in",
        [](const std::string& text) { return text.find("listening") != std::string::npos; });
  }

  // Cloud DNS v1: apiUrl() + "/projects/" + kProject + "/managedZones...".
  std::string apiUrl() const { return "http://127.0.0.1:" + std::to_string(port_) + "/dns/v1"; }
  // The token endpoint (the key file's token_uri, and the JWT's aud).
  std::string tokenUrl() const { return "http://127.0.0.1:" + std::to_string(port_) + "/token"; }
  std::string dnsAddress() const { return "127.0.0.1:" + std::to_string(dnsPort_); }
  std::string log() const { return readLog(dir_ / "standin.log"); }

  // The service account's key file (JSON, as the Google Cloud console gives it) and its text.
  std::filesystem::path keyFilePath() const { return dir_ / "keys" / "service-account.json"; }
  std::string keyFileJson() const { return readLog(keyFilePath()); }
  // A key file of the same account whose key was deleted: its assertions are refused.
  std::filesystem::path revokedKeyFilePath() const { return dir_ / "keys" / "revoked-key.json"; }
  std::string revokedKeyFileJson() const { return readLog(revokedKeyFilePath()); }

  // The next `count` Cloud DNS requests are answered 429 rateLimitExceeded (the token endpoint
  // is not throttled).
  void throttle(int count) const { post("throttle", std::to_string(count)); }
  // Every access token issued so far stops working (401 authError), as when they expire.
  void expireTokens() const { post("expire-tokens", ""); }

  // Cloud DNS requests answered so far (throttled ones included).
  int requests() const { return count("requests"); }
  // Access tokens issued so far.
  int tokens() const { return count("tokens"); }
  // Changes accepted so far.
  int changes() const { return count("changes"); }
  // TXT values it holds, in every zone.
  int records() const { return count("records"); }

 private:
  void post(const std::string& what, const std::string& body) const {
    adapters::common::HttpRequest request;
    request.url = "http://127.0.0.1:" + std::to_string(port_) + "/__standin/" + what;
    request.body = body;
    (void)adapters::common::postHttp(request);
  }

  int count(const std::string& what) const {
    adapters::common::HttpRequest request;
    request.url = "http://127.0.0.1:" + std::to_string(port_) + "/__standin/" + what;
    const auto answer = adapters::common::getHttp(request);
    if (!answer || answer->status != 200) return -1;
    const auto at = answer->body.find(':');
    return at == std::string::npos ? -1 : std::atoi(answer->body.c_str() + at + 1);
  }

  int dnsPort_ = 0;
};

// The one stand-in a test process shares (started on first use, stopped at exit).
inline GCloudStandIn& gcloudStandIn() {
  static GCloudStandIn server;
  return server;
}

}  // namespace certsteward::testing
