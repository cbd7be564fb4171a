// /api/v1/auth: login, refresh, logout, me. Login and refresh answer the token body and set
// the three cookies of docs/api.md (Authentication); tokens never appear in logs.
#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/json_io.hpp>
#include <certsteward/adapters/rest/users_json.hpp>
#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/events.hpp>
#include <certsteward/domain/text.hpp>

namespace certsteward::adapters::rest {
namespace {

std::vector<SetCookie> sessionCookies(const services::TokenPair& tokens, const std::string& csrf,
                                      const ApiOptions& options) {
  const auto maxAge =
      std::chrono::duration_cast<std::chrono::seconds>(options.refresh_token_ttl).count();
  return {
      SetCookie{"access_token", tokens.access_token, "/", maxAge, true, options.secure_cookies},
      SetCookie{"refresh_token", tokens.refresh_token, "/api/v1/auth", maxAge, true,
                options.secure_cookies},
      SetCookie{"csrf_token", csrf, "/", maxAge, false, options.secure_cookies},
  };
}

std::vector<SetCookie> clearedCookies(const ApiOptions& options) {
  return {SetCookie{"access_token", "", "/", 0, true, options.secure_cookies},
          SetCookie{"refresh_token", "", "/api/v1/auth", 0, true, options.secure_cookies},
          SetCookie{"csrf_token", "", "/", 0, false, options.secure_cookies}};
}

json::object loginBody(const services::LoginResult& result);

json::object tokenBody(const services::TokenPair& tokens) {
  return {{"access_token", tokens.access_token},
          {"refresh_token", tokens.refresh_token},
          {"token_type", "Bearer"},
          {"expires_in", tokens.expires_in}};
}

json::object loginBody(const services::LoginResult& result) {
  json::object payload = tokenBody(result.tokens);
  payload["user"] = json::object{{"id", result.user.id},
                                 {"username", result.user.username},
                                 {"org_role", std::string(nameOf(result.user.org_role))}};
  payload["csrf_token"] = result.csrf_token;
  return payload;
}

// Single sign-on ends on the web UI: its start page, or its sign-in page with what went wrong.
HttpResponse redirectTo(const std::string& location) {
  HttpResponse r;
  r.status = 302;
  r.content_type = "text/plain; charset=utf-8";
  r.body = "See " + location + "\n";
  r.headers.emplace_back("Location", location);
  r.headers.emplace_back("Cache-Control", "no-store");
  return r;
}

// The sign-in page is told a fixed code (it words it itself), never free text: a link with
// made-up words cannot put them on this origin's page.
std::string ssoCode(const domain::Error& e) {
  if (e.reason == "NO_ROLE") return "no_role";
  if (e.reason == "RATE_LIMITED") return "rate_limited";
  if (e.reason == "SSO_DISABLED") return "not_enabled";
  if (e.code == domain::ErrorCode::unavailable) return "provider_unreachable";
  if (e.reason.starts_with("SSO_")) return domain::asciiLower(e.reason.substr(4));
  return "failed";
}

HttpResponse ssoFailed(const std::string& code, const ApiOptions& options) {
  auto r = redirectTo("/?sso_error=" + domain::percentEncode(code));
  r.cookies.push_back(
      SetCookie{"oidc_login", "", "/api/v1/auth/oidc", 0, true, options.secure_cookies});
  return r;
}

}  // namespace

void Api::addOidcRoutes() {
  const RouteOptions open{false};

  router_.add(
      "GET", "/api/v1/auth/oidc",
      [this](const Call&) {
        auto offer = s_.oidcLogin.offer();
        if (!offer) return errorResponse(offer.error());
        json::object body{{"enabled", offer->enabled}};
        if (offer->enabled) body["display_name"] = offer->display_name;
        return jsonResponse(200, body);
      },
      open);

  router_.add(
      "GET", "/api/v1/auth/oidc/login",
      [this](const Call& c) {
        auto started = s_.oidcLogin.start(c.request.client_ip);
        if (!started) return ssoFailed(ssoCode(started.error()), options_);
        auto r = redirectTo(started->provider_url);
        const auto ttl = std::chrono::duration_cast<std::chrono::seconds>(services::kOidcLoginTtl);
        r.cookies.push_back(SetCookie{"oidc_login", started->login_state, "/api/v1/auth/oidc",
                                      ttl.count(), true, options_.secure_cookies});
        return r;
      },
      open);

  router_.add(
      "GET", "/api/v1/auth/oidc/callback",
      [this](const Call& c) {
        const auto param = [&](const char* name) {
          return queryParam(c.request, name).value_or("");
        };
        const auto cookie = c.request.cookies.find("oidc_login");
        auto result = s_.ssoSignIn.complete(param("code"), param("state"),
                                            cookie == c.request.cookies.end() ? "" : cookie->second,
                                            param("error"), c.context);
        if (!result) return ssoFailed(ssoCode(result.error()), options_);
        auto r = redirectTo("/");
        r.cookies = sessionCookies(result->tokens, result->csrf_token, options_);
        r.cookies.push_back(
            SetCookie{"oidc_login", "", "/api/v1/auth/oidc", 0, true, options_.secure_cookies});
        return r;
      },
      open);
}

void Api::addAuthRoutes() {
  const RouteOptions open{false};

  router_.add(
      "POST", "/api/v1/auth/login",
      [this](const Call& c) {
        const auto body = parseBody(c.request);
        const std::string username = requiredString(body, "username", 200);
        const std::string password = requiredString(body, "password", 1000);
        auto result = s_.auth.login(username, password, c.context);
        if (!result) return errorResponse(result.error());
        if (!result->otp_session_id.empty()) {
          // Second factor required: no tokens yet (docs/api.md: 200, not 401).
          return jsonResponse(200, json::object{{"otp_required", true},
                                                {"otp_setup_required", false},
                                                {"otp_session_id", result->otp_session_id}});
        }
        auto response = jsonResponse(200, loginBody(*result));
        response.cookies = sessionCookies(result->tokens, result->csrf_token, options_);
        return response;
      },
      open);

  router_.add(
      "POST", "/api/v1/auth/otp/verify",
      [this](const Call& c) {
        const auto body = parseBody(c.request);
        const std::string code = requiredString(body, "code", 16);
        const auto session = c.request.header("x-otp-session-id");
        if (!session || session->empty()) {
          return errorResponse(domain::makeError(domain::ErrorCode::unauthenticated,
                                                 "X-OTP-Session-ID is required", "TOKEN_MISSING"));
        }
        auto result = s_.auth.verifyOtp(*session, code, c.context);
        if (!result) return errorResponse(result.error());
        auto response = jsonResponse(200, loginBody(*result));
        response.cookies = sessionCookies(result->tokens, result->csrf_token, options_);
        return response;
      },
      open);

  router_.add("POST", "/api/v1/auth/totp/setup", [this](const Call& c) {
    auto enrolment = s_.auth.totpSetup(c.who(), c.context);  // audited with the change
    if (!enrolment) return errorResponse(enrolment.error());
    return jsonResponse(
        200, json::object{{"secret", enrolment->secret}, {"otpauth_url", enrolment->otpauth_url}});
  });

  router_.add("POST", "/api/v1/auth/totp/enable", [this](const Call& c) {
    const auto body = parseBody(c.request);
    if (auto s = s_.auth.totpEnable(c.who(), c.context, requiredString(body, "code", 16)); !s) {
      return errorResponse(s.error());
    }
    return jsonResponse(200, json::object{{"totp_enabled", true}});
  });

  router_.add("POST", "/api/v1/auth/totp/disable", [this](const Call& c) {
    const auto body = parseBody(c.request);
    if (auto s = s_.auth.totpDisable(c.who(), c.context, requiredString(body, "code", 16)); !s) {
      return errorResponse(s.error());
    }
    return jsonResponse(200, json::object{{"totp_enabled", false}});
  });

  router_.add(
      "POST", "/api/v1/auth/refresh",
      [this](const Call& c) {
        const auto body = parseBody(c.request);
        auto token = optionalString(body, "refresh_token", 4096);
        bool fromCookie = false;
        if (!token) {
          const auto it = c.request.cookies.find("refresh_token");
          if (it == c.request.cookies.end() || it->second.empty()) {
            return errorResponse(domain::makeError(domain::ErrorCode::unauthenticated,
                                                   "no refresh token", "TOKEN_MISSING"));
          }
          // A cookie refresh is a cookie-authenticated mutation: it must pass the CSRF check.
          const auto csrf = c.request.cookies.find("csrf_token");
          const auto header = c.request.header("x-csrf-token");
          if (csrf == c.request.cookies.end() || csrf->second.empty() || !header ||
              *header != csrf->second) {
            return errorResponse(403, "missing or wrong X-CSRF-Token");
          }
          token = it->second;
          fromCookie = true;
        }
        auto pair = s_.auth.refresh(
            *token, c.request.client_ip,
            fromCookie ? std::optional<std::string>(*c.request.header("x-csrf-token"))
                       : std::nullopt);
        if (!pair) return errorResponse(pair.error());
        auto response = jsonResponse(200, tokenBody(*pair));
        if (fromCookie) {
          response.cookies = sessionCookies(*pair, c.request.cookies.at("csrf_token"), options_);
        }
        return response;
      },
      open);

  router_.add("POST", "/api/v1/auth/password", [this](const Call& c) {
    const auto body = parseBody(c.request);
    for (const auto& [key, value] : body) {
      (void)value;
      if (key != "current_password" && key != "new_password") {
        throw BadRequest("unknown field: " + std::string(key).substr(0, 40));
      }
    }
    auto result = s_.auth.changeOwnPassword(c.who(), c.context,
                                            requiredString(body, "current_password", 1000),
                                            requiredString(body, "new_password", 1000));
    if (!result) return errorResponse(result.error());
    // Every session ended, this one too: the caller continues in a new one.
    auto response = jsonResponse(200, loginBody(*result));
    response.cookies = sessionCookies(result->tokens, result->csrf_token, options_);
    return response;
  });

  router_.add("GET", "/api/v1/auth/sessions", [this](const Call& c) {
    auto sessions = s_.auth.sessions(c.who());
    if (!sessions) return errorResponse(sessions.error());
    json::array items;
    for (const auto& s : *sessions) {
      items.push_back(json::object{{"id", s.summary.family_id},
                                   {"started_at", timestamp(s.summary.started_at)},
                                   {"last_renewed_at", timestamp(s.summary.last_renewed_at)},
                                   {"expires_at", timestamp(s.summary.expires_at)},
                                   {"current", s.current}});
    }
    return jsonResponse(200, json::object{{"sessions", std::move(items)}});
  });

  router_.add("DELETE", "/api/v1/auth/sessions/:session_id", [this](const Call& c) {
    const auto who = c.who();
    if (auto s = s_.auth.endSession(who, c.context, c.param("session_id")); !s) {
      return errorResponse(s.error());
    }
    HttpResponse response;
    response.status = 204;
    if (c.param("session_id") == who.session) response.cookies = clearedCookies(options_);
    return response;
  });

  router_.add("POST", "/api/v1/auth/logout", [this](const Call& c) {
    const auto body = parseBody(c.request);
    auto token = optionalString(body, "refresh_token", 4096);
    if (!token) {
      if (const auto it = c.request.cookies.find("refresh_token"); it != c.request.cookies.end()) {
        token = it->second;
      }
    }
    // The session ends and is audited in one step.
    if (auto s = s_.auth.logout(c.who(), c.context, token); !s) return errorResponse(s.error());
    HttpResponse response;
    response.status = 204;
    response.cookies = clearedCookies(options_);
    return response;
  });

  const auto profileJson = [](const domain::User& u) {
    json::object notifications;
    for (const auto kind : domain::kEventKinds) {
      const std::string name(nameOf(kind));
      const auto it = u.notification_preferences.find(name);
      notifications[name] = it == u.notification_preferences.end() ? "on" : it->second;
    }
    return json::object{{"profile", json::object{{"time_zone", u.time_zone},
                                                 {"language", u.language},
                                                 {"notifications", notifications}}}};
  };

  router_.add("GET", "/api/v1/auth/me/profile", [this, profileJson](const Call& c) {
    auto user = s_.users.profile(c.who());
    if (!user) return errorResponse(user.error());
    return jsonResponse(200, profileJson(*user));
  });

  router_.add("PATCH", "/api/v1/auth/me/profile", [this, profileJson](const Call& c) {
    const auto body = parseBody(c.request);
    services::ProfileChanges changes;
    changes.time_zone = optionalString(body, "time_zone", 64);
    changes.language = optionalString(body, "language", 64);
    if (const auto* n = body.if_contains("notifications"); n != nullptr && !n->is_null()) {
      if (!n->is_object()) throw BadRequest("notifications must be an object");
      std::map<std::string, std::string> prefs;
      for (const auto& [kind, choice] : n->as_object()) {
        if (!choice.is_string()) throw BadRequest("each notification choice must be a string");
        prefs[std::string(kind)] = std::string(choice.as_string());
      }
      changes.notification_preferences = std::move(prefs);
    }
    auto user = s_.users.updateProfile(c.who(), c.context, changes);
    if (!user) return errorResponse(user.error());
    return jsonResponse(200, profileJson(*user));
  });

  router_.add("GET", "/api/v1/auth/me", [this](const Call& c) {
    auto memberships = s_.access.membershipsOf(c.who());
    if (!memberships) return errorResponse(memberships.error());
    json::array projects;
    for (const auto& m : *memberships) {
      projects.push_back(
          json::object{{"project_id", m.project_id}, {"role", std::string(nameOf(m.role))}});
    }
    // The role matrix itself, so that a client (the web UI) offers only what the caller's role
    // allows without keeping its own copy of the rules.
    json::array rules;
    for (const auto& rule : services::accessRules()) {
      rules.push_back(json::object{
          {"action", std::string(rule.name)},
          {"org_role", rule.org ? json::value(std::string(nameOf(*rule.org))) : json::value()},
          {"project_role",
           rule.project ? json::value(std::string(nameOf(*rule.project))) : json::value()}});
    }
    return jsonResponse(200, json::object{{"user", toJson(c.who().user)},
                                          {"org_role", std::string(nameOf(c.who().user.org_role))},
                                          {"org", json::object{{"name", "default"}}},
                                          {"memberships", projects},
                                          {"access_rules", rules}});
  });
}

}  // namespace certsteward::adapters::rest
