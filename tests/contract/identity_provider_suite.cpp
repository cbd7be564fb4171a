// The IdentityProvider contract suite (testing/contract) against the shared fake and against the
// OpenID Connect client with the real provider of the single sign-on tests (npm oidc-provider,
// tests/support/oidc_provider_server.hpp; started once per test process on 127.0.0.1), where a
// browser-less client signs the person in through the provider's login and consent pages.
#include <curl/curl.h>

#include <string>

#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/oidc/oidc_client.hpp>
#include <certsteward/testing/fake_identity_provider.hpp>
#include "support/free_port.hpp"
#include "support/oidc_provider_server.hpp"

namespace {

using namespace certsteward;

// The claims the test provider's people carry (ui/tests/oidc-provider.mjs).
std::map<std::string, std::vector<std::string>> claimsOf(const std::string& person) {
  std::vector<std::string> groups;
  if (person == "alice" || person == "carol") groups.push_back("pki-admins");
  if (person == "carol") groups.push_back("pki-operators");
  return {{"preferred_username", {person}}, {"groups", groups}};
}

struct FakeProviderHarness {
  testing::FakeIdentityProvider fake;
  domain::OidcSettings oidc = [] {
    domain::OidcSettings s;
    s.issuer = "https://idp.example.test";
    s.client_id = "certsteward";
    s.redirect_uri = "https://certs.example.test/api/v1/auth/oidc/callback";
    return s;
  }();
  FakeProviderHarness() { fake.setIssuer(oidc.issuer); }
  bool available() { return true; }
  std::string reason() { return {}; }
  ports::IdentityProvider& provider() { return fake; }
  domain::OidcSettings settings() { return oidc; }
  std::string clientSecret() { return "client secret"; }
  std::string signIn(const std::string&, const std::string& person) {
    return fake.approve(fake.lastLogin(), "sub-" + person, claimsOf(person));
  }
  void makeUnreachable() { fake.setReachable(false); }
};

constexpr const char* kCallback = "http://127.0.0.1:9/api/v1/auth/oidc/callback";  // never visited

testing::OidcProviderServer& idp() {
  static testing::OidcProviderServer server(CERTSTEWARD_SOURCE_DIR, kCallback);
  REQUIRE_MESSAGE(server.available(), server.reason());
  return server;
}

// A browser without a screen: one libcurl handle with its cookie engine, redirects followed by
// hand (at most 20 hops) until one leads to the callback.
class Browser {
 public:
  Browser() : curl_(curl_easy_init()) {
    curl_easy_setopt(curl_, CURLOPT_COOKIEFILE, "");
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT, 10L);
    curl_easy_setopt(curl_, CURLOPT_PROTOCOLS_STR, "http");
    curl_easy_setopt(
        curl_, CURLOPT_WRITEFUNCTION, +[](char* p, size_t s, size_t n, void* out) {
          static_cast<std::string*>(out)->append(p, s * n);
          return s * n;
        });
  }
  ~Browser() { curl_easy_cleanup(curl_); }
  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  // The callback URL the provider sends the browser to once `person` has signed in at `url`.
  std::string signIn(std::string url, const std::string& person) {
    std::string form;  // what to post to `url` (a page of the provider's login or consent)
    for (int hop = 0; hop < 20; ++hop) {
      if (url.starts_with(kCallback)) return url;
      std::string body;
      long status = 0;
      const std::string location = request(url, form, body, status);
      if (status >= 300 && status < 400) {
        url = location;
        form.clear();
        continue;
      }
      REQUIRE_MESSAGE(status == 200, body.substr(0, 500));
      REQUIRE_MESSAGE(form.empty(), body.substr(0, 500));  // a form posted twice: stuck
      form = body.find("name=\"login\"") != std::string::npos
                 ? "prompt=login&login=" + person + "&password=x"
                 : "prompt=consent";
    }
    FAIL("the provider never sent the browser back");
    return {};
  }

 private:
  // One request (a POST of `form` when there is one); the absolute Location of the answer.
  std::string request(const std::string& url, const std::string& form, std::string& body,
                      long& status) {
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &body);
    if (form.empty()) {
      curl_easy_setopt(curl_, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(curl_, CURLOPT_COPYPOSTFIELDS, form.c_str());
    }
    const CURLcode rc = curl_easy_perform(curl_);
    REQUIRE_MESSAGE(rc == CURLE_OK, curl_easy_strerror(rc));
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &status);
    char* location = nullptr;
    curl_easy_getinfo(curl_, CURLINFO_REDIRECT_URL, &location);  // made absolute by libcurl
    return location != nullptr ? std::string(location) : std::string();
  }

  CURL* curl_;
};

struct OidcHarness {
  adapters::crypto::SystemClock clock;
  adapters::oidc::OidcClient client{clock};
  domain::OidcSettings oidc = [] {
    domain::OidcSettings s;
    s.issuer = idp().issuer();
    s.client_id = testing::OidcProviderServer::kClientId;
    s.redirect_uri = kCallback;
    return s;
  }();
  bool available() { return true; }  // idp() fails the case with the reason when it cannot run
  std::string reason() { return {}; }
  ports::IdentityProvider& provider() { return client; }
  domain::OidcSettings settings() { return oidc; }
  std::string clientSecret() { return testing::OidcProviderServer::kClientSecret; }
  std::string signIn(const std::string& url, const std::string& person) {
    const std::string back = Browser().signIn(url, person);
    const auto at = back.find("code=", back.find('?'));
    REQUIRE_MESSAGE(at != std::string::npos, back);
    const auto start = at + 5;
    return back.substr(start, back.find('&', start) - start);
  }
  void makeUnreachable() {
    oidc.issuer = "http://127.0.0.1:" + std::to_string(testing::freeLoopbackPort());
  }
};

}  // namespace

#define CERTSTEWARD_IDENTITY_PROVIDER_HARNESSES FakeProviderHarness, OidcHarness
#include <certsteward/testing/contract/identity_provider_contract.hpp>
