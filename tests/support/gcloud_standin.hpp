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
#include "support/python_standin.hpp"

namespace certsteward::testing {

class GCloudStandIn : public PythonStandIn {
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
    if (!std::filesystem::exists("/usr/bin/openssl")) {
      reason_ = "the openssl command is not installed";
      return;
    }
    dir_ = freshServerDir("gcloud");
    launch("the Google Cloud DNS stand-in", "gcloud_standin.py",
           {(dir_ / "keys").string(), kProject, std::to_string(kVisibleAfter),
            std::to_string(kPendingPolls),
            std::string("example.test=") + kPrivateZoneName + "=private",
            std::string("example.test=") + kZoneName, std::string("other.test=") + kOtherZoneName});
  }

  // Cloud DNS v1: apiUrl() + "/projects/" + kProject + "/managedZones...".
  std::string apiUrl() const { return base() + "/dns/v1"; }
  // The token endpoint (the key file's token_uri, and the JWT's aud).
  std::string tokenUrl() const { return base() + "/token"; }

  // The service account's key file (JSON, as the Google Cloud console gives it) and its text.
  std::filesystem::path keyFilePath() const { return dir_ / "keys" / "service-account.json"; }
  std::string keyFileJson() const { return readLog(keyFilePath()); }
  // A key file of the same account whose key was deleted: its assertions are refused.
  std::filesystem::path revokedKeyFilePath() const { return dir_ / "keys" / "revoked-key.json"; }
  std::string revokedKeyFileJson() const { return readLog(revokedKeyFilePath()); }

  // The next `count` Cloud DNS requests are answered 429 rateLimitExceeded (the token endpoint
  // is not throttled).
  void throttle(int count) const { control("throttle", std::to_string(count)); }
  // Every access token issued so far stops working (401 authError), as when they expire.
  void expireTokens() const { control("expire-tokens", ""); }

  // Cloud DNS requests answered so far (throttled ones included).
  int requests() const { return counted("requests"); }
  // Access tokens issued so far.
  int tokens() const { return counted("tokens"); }
  // Changes accepted so far.
  int changes() const { return counted("changes"); }
  // TXT values it holds, in every zone.
  int records() const { return counted("records"); }
};

// The one stand-in a test process shares (started on first use, stopped at exit).
inline GCloudStandIn& gcloudStandIn() {
  static GCloudStandIn server;
  return server;
}

}  // namespace certsteward::testing
