// End to end over real HTTP: single sign-on through a real OpenID provider (npm oidc-provider
// on 127.0.0.1) with a browser-less client that keeps cookies and follows redirects one by one.
// The owner configures the provider, the login page learns that SSO is offered, a person signs
// in through the provider's login and consent pages and lands on the UI with the three session
// cookies and the role their groups map to; a tampered state, a callback in another browser, a
// replayed callback, the provider's refusal, a local account of the same name and a disabled
// SSO each end on the UI's sign-in page with a code saying what went wrong, and no session. A
// provider played by the test then answers ID tokens signed by another key, with another nonce,
// expired or for another client: each is refused through the real callback.
#include <curl/curl.h>

#include <mutex>

#include "e2e/api_support.hpp"
#include "support/http_stub.hpp"
#include "support/oidc_provider_server.hpp"
#include "support/test_signing_key.hpp"

using namespace certsteward::testing::api;
using certsteward::testing::OidcProviderServer;

namespace {

// A browser without a screen: one libcurl handle with its cookie engine; redirects followed by
// hand (at most 20), so each hop can be looked at.
class Browser {
 public:
  Browser() : curl_(curl_easy_init()) {
    curl_easy_setopt(curl_, CURLOPT_COOKIEFILE, "");  // the in-memory cookie engine
    curl_easy_setopt(curl_, CURLOPT_TIMEOUT, 20L);
    curl_easy_setopt(curl_, CURLOPT_PROTOCOLS_STR, "http");
    curl_easy_setopt(
        curl_, CURLOPT_WRITEFUNCTION, +[](char* p, size_t s, size_t n, void* out) {
          static_cast<std::string*>(out)->append(p, s * n);
          return s * n;
        });
    curl_easy_setopt(
        curl_, CURLOPT_HEADERFUNCTION, +[](char* p, size_t s, size_t n, void* out) {
          std::string line(p, s * n);
          const auto colon = line.find(':');
          if (colon != std::string::npos) {
            std::string name = line.substr(0, colon);
            for (char& c : name)
              c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            std::string value = line.substr(colon + 1);
            while (!value.empty() && (value.front() == ' '))
              value.erase(0, 1);
            while (!value.empty() && (value.back() == '\r' || value.back() == '\n'))
              value.pop_back();
            static_cast<HttpResult*>(out)->headers.emplace(name, value);
          }
          return s * n;
        });
  }
  ~Browser() { curl_easy_cleanup(curl_); }
  Browser(const Browser&) = delete;
  Browser& operator=(const Browser&) = delete;

  // One request; `form` makes it a POST of application/x-www-form-urlencoded.
  HttpResult hop(const std::string& url, const std::string& form = {}) {
    HttpResult r;
    curl_easy_setopt(curl_, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl_, CURLOPT_WRITEDATA, &r.body);
    curl_easy_setopt(curl_, CURLOPT_HEADERDATA, &r);
    if (form.empty()) {
      curl_easy_setopt(curl_, CURLOPT_HTTPGET, 1L);
    } else {
      curl_easy_setopt(curl_, CURLOPT_POSTFIELDS, form.c_str());
    }
    const CURLcode rc = curl_easy_perform(curl_);
    REQUIRE_MESSAGE(rc == CURLE_OK, curl_easy_strerror(rc));
    curl_easy_getinfo(curl_, CURLINFO_RESPONSE_CODE, &r.status);
    last_ = url;
    return r;
  }

  // Follows redirects from `url` until an answer that is not one, or until `stopAt` is the
  // start of the next URL (returned unvisited in `next`).
  HttpResult follow(std::string url, const std::string& stopAt = {}) {
    for (int i = 0; i < 20; ++i) {
      HttpResult r = hop(url);
      if (r.status < 300 || r.status >= 400) return r;
      url = absolute(r.header("location"));
      if (!stopAt.empty() && url.starts_with(stopAt)) {
        next = url;
        return r;
      }
    }
    FAIL("more than 20 redirects");
    return {};
  }

  // Signs `person` in at the provider's development pages (login, then consent) and follows
  // to the first URL that starts with `stopAt` (this server's callback).
  void signInAtProvider(const std::string& providerUrl, const std::string& person,
                        const std::string& stopAt) {
    next.clear();
    auto page = follow(providerUrl, stopAt);
    for (int step = 0; step < 4 && next.empty(); ++step) {
      REQUIRE_MESSAGE(page.status == 200, page.body.substr(0, 500));
      const std::string form = page.body.find("name=\"login\"") != std::string::npos
                                   ? "prompt=login&login=" + person + "&password=x"
                                   : "prompt=consent";
      auto posted = hop(last_, form);  // the interaction page posts to itself
      REQUIRE_MESSAGE(posted.status >= 300, posted.body.substr(0, 500));
      const std::string to = absolute(posted.header("location"));
      if (to.starts_with(stopAt)) {
        next = to;
        break;
      }
      page = follow(to, stopAt);
    }
    REQUIRE_MESSAGE(!next.empty(), "the provider never sent the browser back");
  }

  // Sends `nameValue` ("name=value") with every request from now on, as a stolen cookie would be.
  void sendCookie(const std::string& nameValue) {
    curl_easy_setopt(curl_, CURLOPT_COOKIE, nameValue.c_str());
  }

  bool hasCookie(const std::string& name) const {
    curl_slist* cookies = nullptr;
    curl_easy_getinfo(curl_, CURLINFO_COOKIELIST, &cookies);
    bool found = false;
    for (auto* c = cookies; c != nullptr; c = c->next) {
      const std::string line = c->data;  // Netscape format: ... \t name \t value
      const auto tab = line.rfind('\t', line.rfind('\t') - 1);
      if (line.substr(tab + 1, line.rfind('\t') - tab - 1) == name &&
          line.substr(line.rfind('\t') + 1) != "") {
        found = true;
      }
    }
    curl_slist_free_all(cookies);
    return found;
  }

  std::string next;  // the URL follow() or signInAtProvider() stopped at

 private:
  std::string absolute(const std::string& location) const {
    if (location.starts_with("http://")) return location;
    const auto origin = last_.substr(0, last_.find('/', 7));
    return origin + location;
  }
  CURL* curl_;
  std::string last_;
};

std::string queryParamOf(const std::string& url, const std::string& name) {
  const auto at = url.find(name + "=");
  REQUIRE(at != std::string::npos);
  const auto start = at + name.size() + 1;
  return url.substr(start, url.find('&', start) - start);
}

std::string replaceParam(const std::string& url, const std::string& name, const std::string& to) {
  const auto at = url.find(name + "=");
  REQUIRE(at != std::string::npos);
  const auto end = url.find('&', at);
  return url.substr(0, at) + name + "=" + to + (end == std::string::npos ? "" : url.substr(end));
}

std::string ssoError(const HttpResult& r) {
  const std::string location = r.header("location");
  const auto at = location.find("sso_error=");
  if (r.status != 302 || at == std::string::npos) return {};
  std::string out;
  const std::string text = location.substr(at + 10);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      out.push_back(static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16)));
      i += 2;
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

struct SsoFixture {
  ServerProcess srv{
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}}};
  std::string callback = srv.baseUrl() + "/api/v1/auth/oidc/callback";
  OidcProviderServer idp{CERTSTEWARD_SOURCE_DIR, callback};
  HttpClient http{srv.baseUrl()};
  Session owner;

  SsoFixture() {
    REQUIRE_MESSAGE(idp.available(), idp.reason());
    owner = login(http, kOwner, kOwnerPassword);
    configure(true);
  }
  void configure(bool enabled) {
    const json::object settings{
        {"enabled", enabled},
        {"display_name", "Test IdP"},
        {"issuer", idp.issuer()},
        {"client_id", OidcProviderServer::kClientId},
        {"client_secret", OidcProviderServer::kClientSecret},
        {"redirect_uri", callback},
        {"group_mappings",
         json::array{json::object{{"group", "pki-admins"}, {"org_role", "admin"}},
                     json::object{{"group", "pki-operators"}, {"org_role", "operator"}}}}};
    auto put =
        http.request("PUT", "/api/v1/settings/oidc", json::serialize(settings), {bearer(owner)});
    REQUIRE_MESSAGE(put.status == 200, put.body);
  }
  std::string loginCookie;  // "oidc_login=..." as the last start set it

  // Starts at this server, signs `person` in at the provider, stops before the callback.
  std::string toCallback(Browser& browser, const std::string& person) {
    auto started = browser.hop(srv.baseUrl() + "/api/v1/auth/oidc/login");
    REQUIRE_MESSAGE(started.status == 302, started.body);
    for (const auto& line : started.all("set-cookie")) {
      if (line.starts_with("oidc_login=")) loginCookie = line.substr(0, line.find(';'));
    }
    const std::string provider = started.header("location");
    CHECK(provider.starts_with(idp.issuer()));
    CHECK(provider.find("code_challenge_method=S256") != std::string::npos);
    CHECK(browser.hasCookie("oidc_login"));
    browser.signInAtProvider(provider, person, callback);
    return browser.next;
  }
};

}  // namespace

TEST_CASE("api sso: a person signs in at the provider and lands on the UI with a session") {
  SsoFixture fx;
  auto offer = HttpClient(fx.srv.baseUrl()).request("GET", "/api/v1/auth/oidc");
  REQUIRE(offer.status == 200);
  CHECK(parse(offer).at("enabled").as_bool());
  CHECK(str(parse(offer), "display_name") == "Test IdP");
  auto settings = fx.http.request("GET", "/api/v1/settings/oidc", "", {bearer(fx.owner)});
  CHECK(settings.body.find(OidcProviderServer::kClientSecret) == std::string::npos);
  CHECK(parse(settings).at("client_secret_configured").as_bool());

  for (const auto& [person, role] : std::vector<std::pair<std::string, std::string>>{
           {"alice", "admin"}, {"bob", "operator"}, {"dave", "viewer"}}) {
    CAPTURE(person);
    Browser browser;
    const std::string back = fx.toCallback(browser, person);
    auto landed = browser.hop(back);
    REQUIRE_MESSAGE(landed.status == 302, fx.idp.log().substr(0, 2000));
    CHECK(landed.header("location") == "/");
    CHECK(browser.hasCookie("access_token"));
    CHECK(browser.hasCookie("refresh_token"));
    CHECK(browser.hasCookie("csrf_token"));
    CHECK_FALSE(browser.hasCookie("oidc_login"));  // used once
    auto me = browser.hop(fx.srv.baseUrl() + "/api/v1/auth/me");
    REQUIRE(me.status == 200);
    const auto user = parse(me).at("user").as_object();
    CHECK(str(user, "username") == person);
    CHECK(str(user, "auth_source") == "oidc");
    CHECK(str(user, "org_role") == role);
    // The same callback again: this browser's login is over...
    CHECK(ssoError(browser.hop(back)) == "no_login");
    // ...and with the login cookie kept from before, the provider refuses its used code.
    Browser thief;
    thief.sendCookie(fx.loginCookie);
    CHECK(ssoError(thief.hop(back)) == "provider_refused");
    CHECK_FALSE(thief.hasCookie("access_token"));
  }
  auto created =
      fx.http.request("GET", "/api/v1/audit-logs?action=user.create", "", {bearer(fx.owner)});
  CHECK(created.body.find("oidc org_role=admin") != std::string::npos);
}

TEST_CASE("api sso: forged, foreign and refused callbacks end on the sign-in page in words") {
  SsoFixture fx;
  {  // A tampered state.
    Browser browser;
    const std::string back = fx.toCallback(browser, "alice");
    auto refused = browser.hop(replaceParam(back, "state", "forged-state"));
    CHECK(ssoError(refused) == "state_mismatch");
    CHECK_FALSE(browser.hasCookie("access_token"));
  }
  {  // The provider's answer brought to another browser.
    Browser browser;
    const std::string back = fx.toCallback(browser, "alice");
    Browser other;
    auto refused = other.hop(back);
    CHECK(ssoError(refused) == "no_login");
    CHECK_FALSE(other.hasCookie("access_token"));
  }
  {  // The provider refuses (the person cancelled): heard only with this sign-in's state.
    Browser browser;
    auto started = browser.hop(fx.srv.baseUrl() + "/api/v1/auth/oidc/login");
    const std::string state = queryParamOf(started.header("location"), "state");
    auto forged = Browser().hop(fx.callback + "?error=access_denied&state=" + state);
    CHECK(ssoError(forged) == "no_login");
    auto refused =
        browser.hop(fx.callback + "?error=access_denied&error_description=Call+555&state=" + state);
    CHECK(ssoError(refused) == "provider_refused");
    CHECK(refused.header("location").find("555") == std::string::npos);
  }
  {  // A local account of the same name is never taken over.
    auto made = fx.http.request(
        "POST", "/api/v1/users",
        R"({"username":"carol","password":"carol local password","org_role":"viewer"})",
        {bearer(fx.owner)});
    REQUIRE(made.status == 201);
    Browser browser;
    auto refused = browser.hop(fx.toCallback(browser, "carol"));
    CHECK(ssoError(refused) == "account_conflict");
    CHECK_FALSE(browser.hasCookie("access_token"));
  }
  {  // SSO switched off: the start says so.
    fx.configure(false);
    Browser browser;
    auto off = browser.hop(fx.srv.baseUrl() + "/api/v1/auth/oidc/login");
    CHECK(ssoError(off) == "not_enabled");
    auto offer = HttpClient(fx.srv.baseUrl()).request("GET", "/api/v1/auth/oidc");
    CHECK_FALSE(parse(offer).at("enabled").as_bool());
  }
  auto failures =
      fx.http.request("GET", "/api/v1/audit-logs?action=auth.login_failed", "", {bearer(fx.owner)});
  CHECK(failures.body.find("oidc: ") != std::string::npos);
  CHECK(failures.body.find("state mismatch") != std::string::npos);
}

TEST_CASE("api sso: ID tokens that fail a check are refused through the real callback") {
  using certsteward::testing::HttpStub;
  using certsteward::testing::StubReply;
  using certsteward::testing::TestSigningKey;
  ServerProcess srv(
      std::map<std::string, std::string>{{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
                                         {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}});
  HttpClient http(srv.baseUrl());
  const auto owner = login(http, kOwner, kOwnerPassword);
  const TestSigningKey key("RS256", "idp-key");
  const TestSigningKey stranger("RS256", "idp-key");  // the provider's kid, not its key
  std::mutex mu;
  std::string issuer;
  std::string idToken;  // what the token endpoint answers next
  HttpStub idp([&](const std::string& method, const std::string& path) {
    std::lock_guard lock(mu);
    if (path == "/.well-known/openid-configuration") {
      return StubReply{
          200, "application/json",
          json::serialize(json::object{{"issuer", issuer},
                                       {"authorization_endpoint", issuer + "/authorize"},
                                       {"token_endpoint", issuer + "/token"},
                                       {"jwks_uri", issuer + "/jwks"}})};
    }
    if (path == "/jwks") {
      return StubReply{200, "application/json",
                       json::serialize(json::object{{"keys", json::array{key.jwk()}}})};
    }
    if (path == "/token" && method == "POST") {
      return StubReply{
          200, "application/json",
          json::serialize(json::object{
              {"access_token", "at"}, {"token_type", "Bearer"}, {"id_token", idToken}})};
    }
    return StubReply{404, "text/plain", "not found"};
  });
  REQUIRE(idp.available());
  {
    std::lock_guard lock(mu);
    issuer = idp.url("");
  }
  const std::string callback = srv.baseUrl() + "/api/v1/auth/oidc/callback";
  auto put = http.request("PUT", "/api/v1/settings/oidc",
                          json::serialize(json::object{{"enabled", true},
                                                       {"issuer", issuer},
                                                       {"client_id", "certsteward"},
                                                       {"client_secret", "stub secret"},
                                                       {"redirect_uri", callback}}),
                          {bearer(owner)});
  REQUIRE_MESSAGE(put.status == 200, put.body);

  const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                       .count();
  struct Row {
    const char* what;
    const TestSigningKey* signer;
    bool ownNonce;
    std::int64_t expires;
    const char* audience;
    const char* because;  // "" = signed in
  };
  const Row rows[] = {
      {"a good token", &key, true, now + 300, "certsteward", ""},
      {"another key", &stranger, true, now + 300, "certsteward", "signature"},
      {"another login's nonce", &key, false, now + 300, "certsteward", "nonce"},
      {"expired", &key, true, now - 600, "certsteward", "expired"},
      {"another client", &key, true, now + 300, "someone-else", "another client"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.what);
    Browser browser;
    auto started = browser.hop(srv.baseUrl() + "/api/v1/auth/oidc/login");
    REQUIRE(started.status == 302);
    const std::string to = started.header("location");
    REQUIRE(to.starts_with(issuer + "/authorize?"));
    const std::string state = queryParamOf(to, "state");
    const std::string nonce = queryParamOf(to, "nonce");
    {
      std::lock_guard lock(mu);
      idToken = certsteward::testing::signJwt(
          *row.signer, json::object{{"iss", issuer},
                                    {"sub", "stub-user"},
                                    {"aud", row.audience},
                                    {"exp", row.expires},
                                    {"iat", now - 700},
                                    {"nonce", row.ownNonce ? nonce : std::string("other-nonce")},
                                    {"preferred_username", "stubby"}});
    }
    auto back = browser.hop(callback + "?code=stub-code&state=" + state);
    REQUIRE(back.status == 302);
    if (std::string(row.because).empty()) {
      CHECK(back.header("location") == "/");
      CHECK(browser.hasCookie("access_token"));
    } else {
      CHECK(ssoError(back) == "token_invalid");
      CHECK_FALSE(browser.hasCookie("access_token"));
      // The audit log says which check failed.
      auto failed =
          http.request("GET", "/api/v1/audit-logs?action=auth.login_failed", "", {bearer(owner)});
      const auto logs = parse(failed).at("logs").as_array();
      REQUIRE_FALSE(logs.empty());
      CHECK_MESSAGE(str(logs[0].as_object(), "details").find(row.because) != std::string::npos,
                    str(logs[0].as_object(), "details"));
    }
  }
}
