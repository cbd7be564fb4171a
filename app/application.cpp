// Wiring only: no rules here.
#include <certsteward/app/application.hpp>

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>

#include <certsteward/adapters/acme/acme_issuer.hpp>
#include <certsteward/adapters/cache/caching_user_repository.hpp>
#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>
#include <certsteward/adapters/crypto/bcrypt_password_hasher.hpp>
#include <certsteward/adapters/crypto/certificate_bundle.hpp>
#include <certsteward/adapters/crypto/ed25519_license_verifier.hpp>
#include <certsteward/adapters/crypto/jwt_token_codec.hpp>
#include <certsteward/adapters/crypto/object_id_generator.hpp>
#include <certsteward/adapters/crypto/openssl_mac.hpp>
#include <certsteward/adapters/crypto/openssl_otp_hasher.hpp>
#include <certsteward/adapters/crypto/openssl_random.hpp>
#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/distribution/built_in_modules.hpp>
#include <certsteward/adapters/distribution/ssh_host_key_reader.hpp>
#include <certsteward/adapters/dns/dns_provider_factory.hpp>
#include <certsteward/adapters/dns/resolver_dns_lookup.hpp>
#include <certsteward/adapters/http/acme_challenge_listener.hpp>
#include <certsteward/adapters/http/http_server.hpp>
#include <certsteward/adapters/http/https_redirect.hpp>
#include <certsteward/adapters/ldap/ldap_directory.hpp>
#include <certsteward/adapters/metrics/prometheus_registry.hpp>
#include <certsteward/adapters/notify/channel_senders.hpp>
#include <certsteward/adapters/oidc/oidc_client.hpp>
#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/runtime/process_runs.hpp>
#include <certsteward/adapters/runtime/psl_public_suffixes.hpp>
#include <certsteward/adapters/runtime/scheduler_loop.hpp>
#include <certsteward/adapters/runtime/thread_background.hpp>
#include <certsteward/adapters/runtime/worker_pool.hpp>
#include <certsteward/adapters/runtime/zoneinfo_time_zones.hpp>
#include <certsteward/adapters/store/codec/settings_documents.hpp>
#include <certsteward/adapters/webui/static_site.hpp>
#include <certsteward/app/logging.hpp>
#include <certsteward/app/store_factory.hpp>
#include <certsteward/app/tls_reloader.hpp>
#include <certsteward/domain/audit.hpp>
#include <certsteward/domain/catalog.hpp>
#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/enum_names.hpp>
#include <certsteward/domain/job.hpp>
#include <certsteward/ports/distribution_modules.hpp>
#include <certsteward/services/abandoned_locks.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_service.hpp>
#include <certsteward/services/auth_service.hpp>
#include <certsteward/services/ca_provider_service.hpp>
#include <certsteward/services/ca_quota_service.hpp>
#include <certsteward/services/catalog_service.hpp>
#include <certsteward/services/certificate_service.hpp>
#include <certsteward/services/configuration_services.hpp>
#include <certsteward/services/directory_login.hpp>
#include <certsteward/services/distribution_job_handler.hpp>
#include <certsteward/services/distribution_service.hpp>
#include <certsteward/services/dns_cleanup_job_handler.hpp>
#include <certsteward/services/expiration_check.hpp>
#include <certsteward/services/issuance_job_handler.hpp>
#include <certsteward/services/job_runner.hpp>
#include <certsteward/services/job_service.hpp>
#include <certsteward/services/ldap_settings_service.hpp>
#include <certsteward/services/license_service.hpp>
#include <certsteward/services/notification_dispatcher.hpp>
#include <certsteward/services/notification_job_handler.hpp>
#include <certsteward/services/notification_runner.hpp>
#include <certsteward/services/notification_service.hpp>
#include <certsteward/services/oidc_login.hpp>
#include <certsteward/services/oidc_settings_service.hpp>
#include <certsteward/services/project_service.hpp>
#include <certsteward/services/provider_checks.hpp>
#include <certsteward/services/renewal_info_job_handler.hpp>
#include <certsteward/services/resource_rules.hpp>
#include <certsteward/services/resource_service.hpp>
#include <certsteward/services/scheduler.hpp>
#include <certsteward/services/ssh_host_key_service.hpp>
#include <certsteward/services/unit_of_work.hpp>
#include <certsteward/services/user_service.hpp>

namespace certsteward::app {
namespace {

std::string readFile(const std::string& path) {
  if (path.empty()) return {};
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

static domain::JobPolicy jobPolicy(const Config& c) {
  return domain::JobPolicy{c.worker_max_attempts, c.worker_lock_ttl,      c.worker_backoff_base,
                           c.worker_backoff_cap,  c.worker_poll_interval, c.worker_shutdown_wait};
}

static services::NotificationOptions notificationOptions(const Config& c) {
  auto policy = jobPolicy(c);
  policy.max_attempts = static_cast<int>(c.notifications_max_attempts);
  return services::NotificationOptions{policy, c.notifications_public_url, c.notifications_timeout};
}

struct Application::Parts {
  Parts(const Config& c, ports::StorePtr s)
      : config(c),
        store(std::move(s)),
        ids(clock),
        users_(store->users(), clock),
        auditMac(c.audit_signing_key),
        fingerprintMac(c.jwt_secret + "/idempotency-fingerprint"),
        csrfMac(c.jwt_secret + "/csrf-session-binding"),
        secretBox(c.secrets_key),
        hasher(c.bcrypt_cost),
        tokens({c.jwt_secret, c.jwt_issuer, c.jwt_audience}),
        work(store->transactions(), store->projects()),
        access(store->memberships(), store->projects()),
        audit(store->auditLog(), auditMac, ids, clock, store->rateLimits(), access),
        ldapSettingsDocument(store->settings(), clock),
        directoryLogin({ldapSettingsDocument, directory, secretBox, users_, ids, clock}, work,
                       access, audit),
        oidcSettingsDocument(store->settings(), clock),
        oidcClient(clock),
        oidcLogin({oidcSettingsDocument, oidcClient, secretBox, random, users_, ids, clock,
                   store->rateLimits()},
                  work, audit),
        auth({users_, store->refreshTokens(), store->rateLimits(), hasher, tokens, ids, random,
              clock, secretBox, otpHasher, csrfMac},
             services::AuthPolicy{c.access_token_ttl, c.refresh_token_ttl, 10, 5}, work, audit,
             &directoryLogin, &oidcLogin),
        projects({store->projects(), store->memberships(), users_, store->certificates(), ids,
                  clock, store->acmeAccounts(), store->dnsCredentials(), store->zones(),
                  store->credentials(), store->moduleConfigs(), store->notificationChannels(),
                  store->notificationRules(), &caProvidersDocument},
                 work, access, audit),
        users({timeZones, users_, store->refreshTokens(), hasher, ids, clock, &random}, work,
              access, audit),
        certificates({store->certificates(), store->jobs(), store->distributions(),
                      store->license(), ids, clock, secretBox, store->acmeAccounts(),
                      store->zones(), &keyBundles, &dnsLookup, &store->moduleConfigs(),
                      !c.acme_http01_address.empty(), &caProvidersDocument, &store->projects()},
                     work, access, audit, jobPolicy(c)),
        jobs({store->jobs(), store->jobLogs(), store->events(), store->rateLimits(), clock,
              store->certificates()},
             work, access, audit),
        dnsProviders(
            adapters::dns::DnsTimeouts{c.dns_timeout, c.dns_poll_interval, c.dns_exec_timeout},
            c.dns_exec_commands, outbound,
            [this, port = c.dns_authoritative_port](const std::string& zone) {
              return dnsLookup.authoritativeServers(zone, port);
            }),
        issuer(secretBox,
               adapters::acme::AcmeSettings{
                   c.acme_ca_bundle,
                   [this](const std::string& url) { return caProviders.trustBundleFor(url); },
                   c.acme_request_timeout, c.acme_order_timeout, c.dns_propagation_timeout,
                   c.acme_poll_interval, outbound}),
        distributionRunner(
            {store->certificates(), store->distributions(), store->moduleConfigs(),
             store->credentials(), distributionModules, secretBox, notifier, clock, background,
             &metrics, &store->jobs(), &ids, &store->leaderLock()},
            services::DistributionOptions{static_cast<std::size_t>(c.distribution_concurrency),
                                          c.distribution_timeout, 100, jobPolicy(c)}),
        expiryJobs(
            {store->certificates(), store->jobs(), notifier, ids, clock, &notificationRunner},
            domain::CertificatePolicy{}, jobPolicy(c)),
        issuanceJobs(
            {store->certificates(),
             store->acmeAccounts(),
             store->zones(),
             store->dnsCredentials(),
             dnsProviders,
             issuer,
             secretBox,
             clock,
             background,
             notifier,
             store->jobs(),
             ids,
             &metrics,
             &store->distributions(),
             &caActivity,
             &dnsLookup,
             c.acme_http01_address.empty() ? nullptr : &store->challengeTokens(),
             &distributionRunner,
             c.acme_order_timeout + std::chrono::minutes{10},
             &caProvidersDocument,
             &audit,
             &store->projects()},
            jobPolicy(c),
            domain::CaFailoverPolicy{c.acme_failover_after_failures, c.acme_failback_after}),
        jobRunner({store->jobs(),
                   store->jobLogs(),
                   clock,
                   background,
                   notifier,
                   &metrics,
                   {&issuanceJobs, &dnsCleanupJobs, &distributionJobs, &deliveryJobs, &expiryJobs,
                    &renewalInfoJobs}},
                  jobPolicy(c)),
        checks({store->acmeAccounts(), store->dnsCredentials(), store->zones(), dnsProviders,
                issuer, secretBox, clock},
               work, access, audit, c.dns_propagation_timeout),
        scheduler({store->leaderLock(), store->certificates(), store->jobs(), ids, clock,
                   store->projects(), store->settings(), &store->notificationRules(),
                   &notificationRunner, &store->transactions()},
                  services::SchedulerOptions{c.scheduler_leader_ttl, 500, 40, jobPolicy(c)}),
        licenseVerifier(readFile(c.license_public_key_file)),
        license(store->license(), licenseVerifier, clock, work, access, audit,
                &store->certificates()),
        configuration(
            {store->acmeAccounts(), store->dnsCredentials(), store->zones(), store->credentials(),
             store->moduleConfigs(), store->notificationChannels(), store->notificationRules(),
             store->distributions(), secretBox, ids, clock, &store->certificates(), &caProviders},
            work, access, audit,
            domain::DistributionPolicy{c.distribution_exec_commands,
                                       c.distribution_file_directories},
            c.dns_exec_commands),
        distributions(
            {store->distributions(), store->certificates(), store->moduleConfigs(), ids, clock},
            store->jobs(), distributionRunner, jobPolicy(c), work, access, audit),
        ldapSettings({ldapSettingsDocument, secretBox}, work, access, audit),
        oidcSettings({oidcSettingsDocument, secretBox}, work, access, audit),
        quotas({store->zones(), store->acmeAccounts(), store->caActivity(), suffixes, clock,
                &caProvidersDocument},
               access, c.acme_rate_limits),
        notifications({store->notificationChannels(), store->notificationDeliveries()},
                      notificationRunner, access, audit),
        catalog(access,
                {c.dns_exec_commands, domain::DistributionPolicy{c.distribution_exec_commands,
                                                                 c.distribution_file_directories}}),
        api({auth,
             projects,
             users,
             audit,
             certificates,
             jobs,
             license,
             {configuration.acmeAccounts, configuration.dnsCredentials, configuration.zones,
              configuration.credentials, configuration.channels, configuration.rules,
              configuration.modules},
             distributions,
             notifications,
             checks,
             quotas,
             ldapSettings,
             directoryLogin,
             oidcSettings,
             oidcLogin,
             ssoSignIn,
             access,
             idempotency,
             monitoring,
             clock,
             metrics,
             caProviders,
             catalog,
             sshHostKeys,
             dnsAccounts},
            {c.secure_cookies, c.refresh_token_ttl, accessLog(c)}) {}

  Config config;
  ports::StorePtr store;
  adapters::metrics::PrometheusRegistry metrics;
  adapters::crypto::SystemClock clock;
  adapters::crypto::ObjectIdGenerator ids;
  // Every service reads users through this cache (authentication reads one per request).
  adapters::cache::CachingUserRepository users_;
  adapters::crypto::OpenSslRandom random;
  std::string instance;  // "<instance>#<boot>", see instanceId()
  adapters::crypto::OpenSslMac auditMac;
  adapters::crypto::OpenSslMac fingerprintMac;
  adapters::crypto::OpenSslMac csrfMac;
  adapters::runtime::ZoneinfoTimeZones timeZones;
  adapters::runtime::PslPublicSuffixes suffixes;
  adapters::crypto::AesGcmSecretBox secretBox;
  adapters::crypto::OpenSslOtpHasher otpHasher;
  adapters::crypto::BcryptPasswordHasher hasher;
  adapters::crypto::OpenSslKeyBundles keyBundles;
  adapters::crypto::JwtTokenCodec tokens;
  services::UnitOfWork work;
  services::AccessControl access;
  services::AuditService audit;
  adapters::codec::LdapSettingsDocument ldapSettingsDocument;
  adapters::ldap::LdapDirectory directory;
  services::DirectoryLogin directoryLogin;
  adapters::codec::OidcSettingsDocument oidcSettingsDocument;
  adapters::oidc::OidcClient oidcClient;
  services::OidcLogin oidcLogin;
  services::AuthService auth;
  services::ProjectService projects;
  services::UserService users;
  // What delegates a challenge elsewhere (CNAMEs), asked of the operator's resolvers.
  adapters::dns::ResolverDnsLookup dnsLookup{adapters::dns::DnsLookupSettings{
      config.dns_resolvers,
      std::min<std::chrono::milliseconds>(
          std::chrono::duration_cast<std::chrono::milliseconds>(config.dns_timeout),
          std::chrono::milliseconds{2000})}};
  services::CertificateService certificates;
  services::JobService jobs;
  adapters::runtime::ThreadBackground background;
  // Events and the outbox: every raised event is recorded with its deliveries in one write.
  services::NotificationDispatcher notifier{
      {store->events(), store->notificationRules(), store->notificationChannels(),
       store->notificationDeliveries(), store->notificationStates(), store->jobs(),
       store->transactions(), store->projects(), ids, clock, &metrics},
      [this] {
        auto o = notificationOptions(config);
        o.on_queued = [this] {
          if (notificationWorkers) notificationWorkers->wake();
        };
        return o;
      }()};
  // The one outbound policy of every connection a project's settings aim.
  std::shared_ptr<const adapters::common::Outbound> outbound =
      std::make_shared<adapters::common::Outbound>(domain::OutboundPolicy(config.outbound_allow));
  adapters::notify::ChannelSenders channelSenders{outbound};
  services::NotificationRunner notificationRunner{
      {store->notificationDeliveries(), store->notificationChannels(), store->notificationRules(),
       store->jobs(), store->transactions(), store->projects(), channelSenders, secretBox, ids,
       clock, &metrics},
      notificationOptions(config)};
  adapters::distribution::BuiltInModules distributionModules{
      adapters::distribution::FileModuleSettings{config.distribution_exec_commands,
                                                 config.distribution_file_directories},
      outbound};
  adapters::dns::DefaultDnsProviderFactory dnsProviders;
  adapters::acme::AcmeIssuer issuer;
  // Before the workers and handlers that read them: destroyed after those stop.
  adapters::codec::CaProvidersDocument caProvidersDocument{store->settings(), clock};
  services::CaProviderService caProviders{{caProvidersDocument, issuer, dnsProviders,
                                           store->projects(), store->acmeAccounts(), ids, clock},
                                          work,
                                          access,
                                          audit};
  services::DistributionRunner distributionRunner;
  // The job types, one handler each (a new type: a handler here and a line in `jobs`).
  services::DnsCleanupJobHandler dnsCleanupJobs{{store->zones(), store->dnsCredentials(),
                                                 dnsProviders, secretBox, clock, background,
                                                 &dnsLookup}};
  services::DistributionJobHandler distributionJobs{distributionRunner, store->certificates(),
                                                    clock};
  services::NotificationJobHandler deliveryJobs{notificationRunner};
  services::ExpirationCheck expiryJobs;
  services::CaActivityRecorder caActivity{{store->caActivity(), suffixes, ids, clock}};
  services::IssuanceJobHandler issuanceJobs;
  services::RenewalInfoJobHandler renewalInfoJobs{
      {store->certificates(), store->acmeAccounts(), issuer, clock}};
  services::JobRunner jobRunner;
  std::unique_ptr<adapters::runtime::WorkerPool> standardWorkers;
  std::unique_ptr<adapters::runtime::WorkerPool> distributionWorkers;
  std::unique_ptr<adapters::runtime::WorkerPool> notificationWorkers;
  services::ProviderChecks checks;
  services::Scheduler scheduler;
  std::unique_ptr<adapters::runtime::SchedulerLoop> schedulerLoop;
  adapters::crypto::Ed25519LicenseVerifier licenseVerifier;
  services::LicenseService license;
  services::ConfigurationServices configuration;
  services::DistributionService distributions;
  services::LdapSettingsService ldapSettings;
  services::OidcSettingsService oidcSettings;
  services::CaQuotaService quotas;
  services::NotificationService notifications;
  services::SsoSignIn ssoSignIn{oidcLogin, auth, audit};
  services::IdempotencyService idempotency{{store->idempotency(), fingerprintMac, clock}, access};
  services::MonitoringService monitoring{*store, clock};
  services::CatalogService catalog;
  adapters::distribution::SshHostKeyReader sshHostKeyReader{outbound};
  services::SshHostKeyService sshHostKeys{
      {sshHostKeyReader, store->rateLimits(), clock}, access, audit, config.distribution_timeout};
  services::DnsAccountRegistration dnsAccounts{dnsProviders, configuration, access};
  adapters::rest::Api api;
  adapters::webui::StaticSite site{adapters::webui::embeddedAssets()};
  std::unique_ptr<adapters::http::HttpServer> server;
  std::unique_ptr<TlsReloader> tls;                      // null: plain HTTP
  std::unique_ptr<adapters::http::HttpServer> redirect;  // plain HTTP that redirects to HTTPS
  std::unique_ptr<adapters::http::HttpServer> http01;    // answers HTTP-01 (acme.http01_listen)
};

domain::Result<std::unique_ptr<Application>> Application::create(const Config& config) {
  if (!config.license_public_key_file.empty() &&
      !adapters::crypto::Ed25519LicenseVerifier::isEd25519PublicKey(
          readFile(config.license_public_key_file))) {
    return domain::makeError(
        domain::ErrorCode::invalid_argument,
        "configuration key license.public_key_file: " + config.license_public_key_file +
            " is not an Ed25519 public key in PEM form");
  }
  auto store = openStore(
      config.store_url,
      {static_cast<std::size_t>(config.store_pool_size),
       std::chrono::duration_cast<std::chrono::milliseconds>(config.store_statement_timeout)});
  if (!store) return store.error();
  return std::unique_ptr<Application>(
      new Application(std::make_unique<Parts>(config, std::move(*store))));
}

Application::Application(std::unique_ptr<Parts> parts) : parts_(std::move(parts)) {}
Application::~Application() {
  stopHttp();
}

domain::Status Application::bootstrap() {
  const char* envUser = std::getenv("CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME");
  const char* envPassword = std::getenv("CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD");
  const std::string username = envUser != nullptr && *envUser != '\0' ? envUser : "admin";
  auto created = parts_->users.bootstrapOwner(username, envPassword != nullptr ? envPassword : "");
  if (!created) return created.error();
  // ACME accounts made before CA providers existed get one for their directory URL.
  auto adopted = parts_->caProviders.adoptAccounts();
  if (!adopted) return adopted.error();
  if (adopted->adopted > 0) {
    spdlog::info("linked {} ACME account(s) to CA providers for their directory URLs",
                 adopted->adopted);
  }
  for (const auto& skipped : adopted->skipped)
    spdlog::warn("an ACME account was left without a CA provider: {}", skipped);
  if (*created && !(*created)->generated_password.empty()) {
    const std::string& password = (*created)->generated_password;
    // Shown once, on the console only (never in the log): the owner must change it.
    std::printf(
        "\nCertSteward created the owner account '%s' with the password:\n\n    %s\n\n"
        "Sign in and change it under Profile (your name, top right): Change password.\n"
        "It is not shown again.\n\n",
        username.c_str(), password.c_str());
    std::fflush(stdout);
  }
  return {};
}

domain::Status Application::createUser(const std::string& username, const std::string& password,
                                       domain::OrgRole role) {
  auto user = parts_->users.createFromCli(username, password, role);
  if (!user) return user.error();
  return {};
}

domain::Status Application::resetPassword(const std::string& username,
                                          const std::string& password) {
  return parts_->users.resetPasswordFromCli(username, password);
}

domain::Result<domain::AuditVerification> Application::verifyAuditLog(
    const std::optional<domain::AuditHead>& expected) {
  return parts_->audit.verifyWholeChain(expected);
}

domain::Result<services::VerifiedMigrationReport> Application::migrate(
    Application& from,
    const std::function<domain::Result<std::unique_ptr<Application>>()>& openTarget,
    const std::function<void(const std::string&)>& progress) {
  std::unique_ptr<Application> target;
  const auto open = [&]() -> domain::Result<services::VerifiedMigration::Side> {
    auto opened = openTarget();
    if (!opened) return opened.error();
    target = std::move(*opened);
    return services::VerifiedMigration::Side{*target->parts_->store, target->parts_->audit};
  };
  return services::VerifiedMigration({*from.parts_->store, from.parts_->audit}, open,
                                     from.parts_->clock)
      .run(progress);
}

const Config& Application::config() const {
  return parts_->config;
}

std::vector<std::string> Application::routes() const {
  std::vector<std::string> out;
  for (const auto& route : parts_->api.router().routes())
    out.push_back(route.method + " " + route.pattern);
  return out;
}

domain::Status Application::startHttp() {
  adapters::http::HttpServerOptions options;
  options.address = parts_->config.listen_address;
  options.port = parts_->config.listen_port;
  options.threads = parts_->config.http_threads;
  if (options.threads == 0) {
    options.threads = std::max(2, static_cast<int>(std::thread::hardware_concurrency()));
  }
  options.max_request_bytes = parts_->config.max_request_bytes;
  options.trusted_proxies = parts_->config.trusted_proxies;
  options.request_threads = parts_->config.http_request_threads;
  options.request_queue = parts_->config.http_request_queue;
  options.idle_timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(parts_->config.http_idle_timeout);
  options.request_timeout =
      std::chrono::duration_cast<std::chrono::milliseconds>(parts_->config.http_request_timeout);
  const auto& config = parts_->config;
  if (config.tlsEnabled()) {
    auto tls = TlsReloader::create(config, parts_->store->projects(), parts_->store->certificates(),
                                   parts_->secretBox);
    if (!tls) return tls.error();
    parts_->tls = std::move(*tls);
    options.tls = parts_->tls->context();
    if (config.tls_hsts.count() > 0) {
      options.response_headers.emplace_back(
          "Strict-Transport-Security",
          "max-age=" +
              std::to_string(
                  std::chrono::duration_cast<std::chrono::seconds>(config.tls_hsts).count()));
    }
  }
  auto application = parts_->api.application(
      [&site = parts_->site](const adapters::http::HttpRequest& r) { return site.serve(r); });
  const auto ready = application.ready;
  parts_->server =
      std::make_unique<adapters::http::HttpServer>(options, std::move(application), parts_->ids);
  if (auto started = parts_->server->start(); !started) return started;
  // HTTP-01 answers (acme.http01_listen): plain HTTP, only /.well-known/acme-challenge/.
  if (!config.acme_http01_address.empty()) {
    adapters::http::HttpServerOptions plain;
    plain.address = config.acme_http01_address;
    plain.port = config.acme_http01_port;
    plain.threads = 1;
    plain.request_threads = 2;
    plain.max_request_bytes = 4096;  // a GET: nothing to read
    plain.idle_timeout = options.idle_timeout;
    plain.request_timeout = options.request_timeout;
    auto& tokens = parts_->store->challengeTokens();
    auto& clock = parts_->clock;
    auto responder = adapters::http::acmeChallengeResponder(
        [&tokens, &clock](const std::string& token) { return tokens.find(token, clock.now()); });
    responder.ready = ready;
    parts_->http01 =
        std::make_unique<adapters::http::HttpServer>(plain, std::move(responder), parts_->ids);
    if (auto started = parts_->http01->start(); !started) return started;
    spdlog::info("answering HTTP-01 challenges on http://{}:{}", config.acme_http01_address,
                 parts_->http01->port());
  }
  if (!parts_->tls) return {};
  parts_->tls->start();
  if (config.tls_redirect_address.empty()) return {};
  adapters::http::HttpServerOptions plain;
  plain.address = config.tls_redirect_address;
  plain.port = config.tls_redirect_port;
  plain.threads = 1;
  plain.request_threads = 0;
  plain.max_request_bytes = options.max_request_bytes;
  plain.idle_timeout = options.idle_timeout;
  plain.request_timeout = options.request_timeout;
  // Where a request without a usable Host is sent: the listener's address, unless it is a
  // wildcard (then the name of this machine as it knows it).
  std::string fallbackHost = config.listen_address;
  if (fallbackHost == "0.0.0.0" || fallbackHost == "::" || fallbackHost.empty()) {
    char host[256] = {};
    fallbackHost =
        ::gethostname(host, sizeof host - 1) == 0 && host[0] != '\0' ? host : "localhost";
  }
  auto redirect = adapters::http::httpsRedirect(fallbackHost, parts_->server->port());
  redirect.ready = ready;  // /readyz there says what it says on the HTTPS listener
  parts_->redirect =
      std::make_unique<adapters::http::HttpServer>(plain, std::move(redirect), parts_->ids);
  if (auto started = parts_->redirect->start(); !started) return started;
  spdlog::info("redirecting http://{}:{} to HTTPS", config.tls_redirect_address,
               parts_->redirect->port());
  return {};
}

std::vector<std::string> Application::unhandledJobTypes() const {
  std::vector<std::string> out;
  for (const auto type : parts_->jobRunner.unhandledTypes())
    out.emplace_back(domain::nameOf(type));
  return out;
}

std::vector<std::string> Application::catalogMismatches() const {
  std::vector<std::string> out;
  for (const auto& module : domain::distributionModuleSpecs()) {
    if (parts_->distributionModules.find(module.name) == nullptr) {
      out.push_back("module " + std::string(module.name) + " is described but not built");
    }
  }
  const auto built = parts_->dnsProviders.kinds();
  for (const auto& provider : domain::dnsProviderSpecs()) {
    if (std::none_of(built.begin(), built.end(),
                     [&](const ports::DnsProviderKind& k) { return k.name == provider.name; })) {
      out.push_back("DNS provider " + std::string(provider.name) + " is described but not built");
    }
  }
  for (const auto& k : built) {
    if (domain::findKind(domain::dnsProviderSpecs(), k.name) == nullptr) {
      out.push_back("DNS provider " + k.name + " is built but not described");
    }
  }
  return out;
}

bool Application::servesHttps() const {
  return parts_->tls != nullptr;
}

std::uint16_t Application::httpPort() const {
  return parts_->server ? parts_->server->port() : 0;
}

void Application::stopHttp() {
  if (parts_ && parts_->redirect) parts_->redirect->stop();
  if (parts_ && parts_->http01) parts_->http01->stop();
  if (parts_ && parts_->server) parts_->server->stop();
  if (parts_ && parts_->tls) parts_->tls->stop();
}

namespace {

// The worker series the shipped dashboard and alerts (docs/monitoring) read exist from the
// start, at 0: rate() and increase() then see the first failure instead of an absent series.
void declareWorkerSeries(adapters::metrics::PrometheusRegistry& metrics) {
  for (const auto type : domain::everyValue<domain::JobType>()) {
    for (const char* outcome : {"succeeded", "retrying", "dead"}) {
      metrics.increment("certsteward_job_attempts_total",
                        {{"type", std::string(nameOf(type))},
                         {"lane", std::string(nameOf(domain::laneOf(type)))},
                         {"outcome", outcome}},
                        0);
    }
  }
  for (const auto type : {domain::JobType::issue_certificate, domain::JobType::renew_certificate}) {
    metrics.declareHistogram("certsteward_issuance_latency_seconds",
                             {{"type", std::string(nameOf(type))}});
  }
}

}  // namespace

std::string Application::instanceId() {
  // "<host>:<address>:<port>#<run>": the same <instance> across restarts of this server (the
  // host and its listener), a <run> per run of the process that a later run can prove over
  // (adapters/runtime/process_runs.hpp).
  if (parts_->instance.empty()) {
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    std::string name = std::string(host) + ":" + parts_->config.listen_address + ":" +
                       std::to_string(httpPort() != 0 ? httpPort() : parts_->config.listen_port);
    std::replace(name.begin(), name.end(), '#', '_');
    std::replace(name.begin(), name.end(), '/', '_');
    parts_->instance = name + "#" + adapters::runtime::currentProcessRun();
  }
  return parts_->instance;
}

void Application::startScheduler() {
  if (!parts_->config.scheduler_enabled) return;
  // At 0 from the start, so increase() sees the first failed sweep (docs/monitoring).
  parts_->metrics.increment("certsteward_scheduler_sweeps_total", {{"result", "error"}}, 0);
  parts_->schedulerLoop = std::make_unique<adapters::runtime::SchedulerLoop>(
      parts_->scheduler, instanceId(), parts_->config.scheduler_heartbeat,
      parts_->config.scheduler_interval, parts_->metrics);
  parts_->schedulerLoop->start();
}

void Application::stopScheduler() {
  if (parts_ && parts_->schedulerLoop) parts_->schedulerLoop->stop();
}

void Application::startWorkers() {
  if (!parts_->config.worker_enabled) return;
  const std::string id = instanceId();
  // What an earlier run of this instance still held (it was killed) is released now, not after
  // worker.lock_ttl: the workers below reclaim it as the job table says.
  auto released =
      services::releaseAbandonedLocks(parts_->store->projects(), parts_->store->jobs(),
                                      parts_->clock, id, adapters::runtime::processRunGone);
  if (!released) {
    spdlog::warn(
        "the jobs an earlier run of this instance held could not be released now ({}); "
        "they are taken again when their locks expire",
        released.error().message);
  } else if (*released > 0) {
    spdlog::info("released {} job(s) that an earlier run of this instance held", *released);
  }
  declareWorkerSeries(parts_->metrics);
  // Deliveries have their own lane too: a slow SMTP server never delays issuance or
  // distribution. Started first: the other lanes' events wake it.
  if (parts_->config.notifications_workers > 0) {
    parts_->notificationWorkers = std::make_unique<adapters::runtime::WorkerPool>(
        parts_->jobRunner, domain::Lane::notification,
        static_cast<int>(parts_->config.notifications_workers), parts_->config.worker_poll_interval,
        parts_->config.worker_shutdown_wait, id);
    parts_->notificationWorkers->start();
  }
  parts_->standardWorkers = std::make_unique<adapters::runtime::WorkerPool>(
      parts_->jobRunner, domain::Lane::standard, parts_->config.worker_max_concurrency,
      parts_->config.worker_poll_interval, parts_->config.worker_shutdown_wait, id);
  parts_->standardWorkers->start();
  // Distribution work has its own lane and threads, so slow targets never hold up issuance.
  parts_->distributionWorkers = std::make_unique<adapters::runtime::WorkerPool>(
      parts_->jobRunner, domain::Lane::distribution, parts_->config.worker_max_concurrency,
      parts_->config.worker_poll_interval, parts_->config.worker_shutdown_wait, id);
  parts_->distributionWorkers->start();
}

void Application::stopWorkers() {
  // Every lane gets the same shutdown wait, side by side.
  std::thread distribution([this] {
    if (parts_ && parts_->distributionWorkers) parts_->distributionWorkers->stop();
  });
  std::thread notification([this] {
    if (parts_ && parts_->notificationWorkers) parts_->notificationWorkers->stop();
  });
  if (parts_ && parts_->standardWorkers) parts_->standardWorkers->stop();
  distribution.join();
  notification.join();
}

}  // namespace certsteward::app
