// Api: the REST API v1 as a function from HttpRequest to HttpResponse. It applies the
// request conventions of docs/api.md in one place (content type, authentication, CSRF, idempotency,
// error shapes) and routes to handlers that call the domain services.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include <certsteward/adapters/common/bounded_cache.hpp>
#include <certsteward/adapters/http/http_server.hpp>
#include <certsteward/adapters/rest/http_messages.hpp>
#include <certsteward/adapters/rest/router.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/metrics.hpp>
#include <certsteward/services/auth_service.hpp>
#include <certsteward/services/ca_provider_service.hpp>
#include <certsteward/services/ca_quota_service.hpp>
#include <certsteward/services/catalog_service.hpp>
#include <certsteward/services/certificate_service.hpp>
#include <certsteward/services/directory_login.hpp>
#include <certsteward/services/distribution_service.hpp>
#include <certsteward/services/dns_account_registration.hpp>
#include <certsteward/services/idempotency_service.hpp>
#include <certsteward/services/job_service.hpp>
#include <certsteward/services/ldap_settings_service.hpp>
#include <certsteward/services/license_service.hpp>
#include <certsteward/services/monitoring_service.hpp>
#include <certsteward/services/notification_service.hpp>
#include <certsteward/services/oidc_login.hpp>
#include <certsteward/services/oidc_settings_service.hpp>
#include <certsteward/services/project_service.hpp>
#include <certsteward/services/provider_checks.hpp>
#include <certsteward/services/resource_service.hpp>
#include <certsteward/services/ssh_host_key_service.hpp>
#include <certsteward/services/sso_sign_in.hpp>
#include <certsteward/services/user_service.hpp>

namespace certsteward::adapters::rest {

// The configuration resources of a project.
struct ResourceServices {
  services::ResourceService<domain::AcmeAccount>& acmeAccounts;
  services::ResourceService<domain::DnsCredential>& dnsCredentials;
  services::ResourceService<domain::Zone>& zones;
  services::ResourceService<domain::Credential>& credentials;
  services::ResourceService<domain::NotificationChannel>& channels;
  services::ResourceService<domain::NotificationRule>& rules;
  services::ResourceService<domain::ModuleConfig>& modules;
};

struct ApiServices {
  services::AuthService& auth;
  services::ProjectService& projects;
  services::UserService& users;
  services::AuditService& audit;
  services::CertificateService& certificates;
  services::JobService& jobs;
  services::LicenseService& license;
  ResourceServices resources;
  services::DistributionService& distributions;
  services::NotificationService& notifications;
  services::ProviderChecks& checks;
  services::CaQuotaService& quotas;
  services::LdapSettingsService& ldapSettings;
  services::DirectoryLogin& directoryLogin;  // the LDAP connection test
  services::OidcSettingsService& oidcSettings;
  services::OidcLogin& oidcLogin;  // where a sign-on starts
  services::SsoSignIn& ssoSignIn;  // where it ends
  const services::AccessControl& access;
  services::IdempotencyService& idempotency;  // Idempotency-Key of mutations
  services::MonitoringService& monitoring;    // GET /readyz, the gauges of GET /metrics
  const ports::Clock& clock;                  // "now" of rendered views
  ports::Metrics& metrics;  // counts requests; its exposition answers GET /metrics
  services::CaProviderService& caProviders;  // /ca-providers
  const services::CatalogService& catalog;         // GET /catalog
  services::SshHostKeyService& sshHostKeys;        // POST /projects/<p>/ssh-host-keys
  services::DnsAccountRegistration& dnsAccounts;   // acme-dns accounts made on their server
};

// One answered API request, for the access log: never a body, a header value or a token.
struct AccessRecord {
  std::string request_id;
  std::string method;
  std::string route;  // the route's pattern ("/api/v1/projects/:project_id"), or "unmatched"
  int status = 0;
  double duration_ms = 0;
  std::string actor;  // the authenticated user's id, "" for anonymous requests
  std::string client_ip;
};

struct ApiOptions {
  bool secure_cookies = false;
  domain::Duration refresh_token_ttl = std::chrono::days{7};
  // Called once per answered request (the access log); unset: none.
  std::function<void(const AccessRecord&)> on_access = {};
};

class Api {
 public:
  Api(ApiServices services, ApiOptions options);

  // What the transport serves (adapters/http/http_server.hpp): the API under /api/, GET
  // /metrics, and anything else through `otherPaths` (the web UI), or a JSON 404 without it;
  // mutations under /api/ may block (request pool); ready while the store answers.
  using Fallback = std::function<HttpResponse(const HttpRequest&)>;
  http::HttpApplication application(Fallback otherPaths = {});

  // One request under /api/. Never throws; every outcome is a response.
  HttpResponse handle(const HttpRequest& request);

  const Router& router() const { return router_; }

  // The Prometheus text of GET /metrics: request counters and latencies, plus the gauges
  // MonitoringService reads at scrape time.
  std::string metricsText();

 private:
  // Every request the transport hands over (see application()).
  HttpResponse serve(const HttpRequest& request, const Fallback& otherPaths);
  // The store answers (GET /readyz); a failure is logged.
  bool ready();
  // `routeLabel` receives the matched route's pattern (for metrics).
  HttpResponse dispatch(const HttpRequest& request, std::string& routeLabel, std::string& actor);
  HttpResponse withIdempotency(const HttpRequest& request, const Call& call, const Route& route);

  void addAuthRoutes();
  void addOidcRoutes();
  void addProjectRoutes();
  void addUserRoutes();
  void addAuditRoutes();
  void addCertificateRoutes();
  void addJobRoutes();
  void addResourceRoutes();
  void addDistributionRoutes();
  void addNotificationRoutes();
  void addSettingsRoutes();
  void addCaProviderRoutes();
  void addCatalogRoutes();

  ApiServices s_;
  ApiOptions options_;
  Router router_;

  // Rendered certificate list pages by project and query, valid while the project's
  // certificate generation is unchanged and until `until` (at most a few seconds; sooner when
  // a listed certificate's derived `failed_renewal` flag would flip).
  struct CachedPage {
    std::int64_t generation = 0;
    std::shared_ptr<const std::string> body;     // shared: a hit copies no page
    std::shared_ptr<const std::string> gzipped;  // the body compressed, once asked for; or null
  };
  common::BoundedCache<CachedPage> certificatePages_{512};
};

// The one table from domain errors to HTTP statuses and bodies (docs/api.md, Errors).
HttpResponse errorResponse(const domain::Error& error);
HttpResponse errorResponse(int status, const std::string& message);

}  // namespace certsteward::adapters::rest
