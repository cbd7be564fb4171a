// HTTP-01 in process: a certificate asks for it (no zone needed; never for a wildcard; only where
// this server answers itself or a file/ssh configuration has a webroot), its challenge plan says
// where each answer goes, and an issuance job presents the answers through the shared challenge
// tokens or through every target of the webroot configuration, and withdraws them afterwards.
#include <doctest/doctest.h>

#include <functional>

#include <certsteward/services/configuration_services.hpp>
#include <certsteward/services/distribution_runner.hpp>
#include <certsteward/services/issuance_job_handler.hpp>
#include <certsteward/testing/fake_distribution.hpp>
#include "services/issuance_fixture.hpp"
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using namespace std::chrono_literals;

namespace {

// A module configuration of `module` in p1 with `targets`, each with `webroot` when given.
Id webrootConfig(ports::ModuleConfigRepository& configs, testing::SequentialIds& ids,
                 const std::string& module, const std::vector<std::string>& targets,
                 const std::string& webroot) {
  ModuleConfig m;
  m.id = ids.next();
  m.project_id = "p1";
  m.name = module + " webroot";
  m.module = module;
  for (const auto& t : targets) {
    DistributionTarget target{t, {{"host", t}}, ""};
    if (!webroot.empty()) target.settings["webroot"] = webroot;
    m.targets.push_back(std::move(target));
  }
  REQUIRE(configs.create(m).ok());
  return m.id;
}

struct Http01Fixture : testing::ServiceFixture {
  // The server as configured with acme.http01_listen (served) or without.
  CertificateService served{{store.certificates(), store.jobs(), store.distributions(),
                             store.license(), ids, clock, secrets, store.acmeAccounts(),
                             store.zones(), &bundles, &lookup, &store.moduleConfigs(), true},
                            work,
                            access,
                            audit};
  CertificateService notServed{{store.certificates(), store.jobs(), store.distributions(),
                                store.license(), ids, clock, secrets, store.acmeAccounts(),
                                store.zones(), &bundles, &lookup, &store.moduleConfigs(), false},
                               work,
                               access,
                               audit};
  Http01Fixture() {
    project("p1");
    License unlimited;  // no cap: several creates below
    unlimited.plan_name = "test";
    unlimited.cert_limit = 0;
    unlimited.expires_at = clock.now() + std::chrono::days{365};
    REQUIRE(store.license().put(unlimited).ok());
  }
  CertificateRequest http01(std::string name, Id config = {}) {
    CertificateRequest r;
    r.common_name = std::move(name);
    r.challenge = ChallengeType::http_01;
    r.http01_module_config_id = std::move(config);
    return r;
  }
};

}  // namespace

TEST_CASE("http-01: a certificate needs no zone, and is refused where nothing can answer it") {
  Http01Fixture fx;
  // No zone of p1 covers the name: dns-01 is refused, http-01 is not.
  CertificateRequest dns;
  dns.common_name = "www.example.org";
  CHECK(fx.served.create(fx.owner(), fx.ctx(), "p1", dns).error().reason == "NAME_NOT_SERVED");
  auto created = fx.served.create(fx.owner(), fx.ctx(), "p1", fx.http01("www.example.org"));
  REQUIRE_MESSAGE(created.ok(), created.error().message);
  const auto stored = *fx.store.certificates().get("p1", created->certificate.id);
  CHECK(stored.challenge == ChallengeType::http_01);
  CHECK(stored.http01_module_config_id.empty());

  const Id file = webrootConfig(fx.store.moduleConfigs(), fx.ids, "file", {"web1"}, "/srv/www");
  const Id bare = webrootConfig(fx.store.moduleConfigs(), fx.ids, "ssh", {"web1", "web2"}, "");
  const Id hook = webrootConfig(fx.store.moduleConfigs(), fx.ids, "webhook", {"hook"}, "/x");
  const std::int64_t before = *fx.store.certificates().countAll();
  const struct {
    const char* why;
    CertificateService* service;
    CertificateRequest request;
    const char* field;
  } rows[] = {
      {"a wildcard", &fx.served, fx.http01("*.example.org"), "challenge"},
      {"a wildcard among the names", &fx.served,
       [&] {
         auto r = fx.http01("example.org");
         r.sans = {"example.org", "*.example.org"};
         return r;
       }(),
       "challenge"},
      {"served, but this server does not answer", &fx.notServed, fx.http01("a.example.org"),
       "challenge"},
      {"a configuration of no one", &fx.served, fx.http01("a.example.org", "nosuchconfig"),
       "http01_module_config_id"},
      {"a module that writes no files", &fx.served, fx.http01("a.example.org", hook),
       "http01_module_config_id"},
      {"targets without a webroot", &fx.served, fx.http01("a.example.org", bare),
       "http01_module_config_id"},
      {"a webroot for a dns-01 certificate", &fx.served,
       [&] {
         auto r = fx.http01("a.example.org", file);
         r.challenge = ChallengeType::dns_01;
         return r;
       }(),
       "http01_module_config_id"},
  };
  for (const auto& row : rows) {
    CAPTURE(row.why);
    auto refused = row.service->create(fx.owner(), fx.ctx(), "p1", row.request);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::invalid_argument);
    REQUIRE(refused.error().references.size() == 1);
    CHECK(refused.error().references[0] == row.field);
  }
  CHECK(*fx.store.certificates().countAll() == before);
  // Through a file configuration whose targets have a webroot (also where this server does not
  // answer itself).
  CHECK(fx.notServed.create(fx.owner(), fx.ctx(), "p1", fx.http01("b.example.org", file)).ok());
}

TEST_CASE("http-01: the challenge plan says who answers each name, or what is wrong") {
  Http01Fixture fx;
  const Id file = webrootConfig(fx.store.moduleConfigs(), fx.ids, "file", {"web1"}, "/srv/www");
  auto viaFile = fx.served.create(fx.owner(), fx.ctx(), "p1", fx.http01("a.example.org", file));
  auto servedHere = fx.served.create(fx.owner(), fx.ctx(), "p1", fx.http01("b.example.org"));
  REQUIRE(viaFile.ok());
  REQUIRE(servedHere.ok());

  auto plan = fx.served.challengePlan(fx.owner(), "p1", viaFile->certificate.id);
  REQUIRE(plan.ok());
  REQUIRE(plan->size() == 1);
  CHECK((*plan)[0].challenge == ChallengeType::http_01);
  CHECK((*plan)[0].http01_via == "module configuration file webroot");
  CHECK((*plan)[0].problem.empty());
  CHECK_FALSE((*plan)[0].route);

  plan = fx.served.challengePlan(fx.owner(), "p1", servedHere->certificate.id);
  REQUIRE(plan.ok());
  CHECK((*plan)[0].http01_via == "this server (acme.http01_listen)");
  CHECK((*plan)[0].problem.empty());
  // An instance without the listener says so; a configuration deleted since is named.
  plan = fx.notServed.challengePlan(fx.owner(), "p1", servedHere->certificate.id);
  CHECK((*plan)[0].problem.find("acme.http01_listen") != std::string::npos);
  REQUIRE(fx.store.moduleConfigs().remove("p1", file).ok());
  plan = fx.served.challengePlan(fx.owner(), "p1", viaFile->certificate.id);
  CHECK((*plan)[0].problem.find("no longer exists") != std::string::npos);
  CHECK((*plan)[0].http01_via == "module configuration " + file);
}

namespace {

struct IssuanceHttp01 : issuance_test::Fixture {
  testing::FakeDistributionModule files;
  testing::FakeDistributionModules modules;
  testing::RecordingNotifierFake runnerNotifier;
  DistributionRunner runner{{store.certificates(), store.distributions(), store.moduleConfigs(),
                             store.credentials(), modules, box, runnerNotifier, clock, background},
                            DistributionOptions{}};
  IssuanceJobHandler::Ports http01Ports() {
    auto p = issuancePorts();
    p.challengeTokens = &store.challengeTokens();
    p.webroots = &runner;
    return p;
  }
  IssuanceJobHandler handler{http01Ports(), policy};
  JobRunner http01Worker{runnerPorts({&handler}), policy};

  IssuanceHttp01() {
    modules.add("file", files);
    auto c = storedCert();
    c.challenge = ChallengeType::http_01;
    REQUIRE(store.certificates().update(c).ok());
  }
  void useWebroot(const Id& config) {
    auto c = storedCert();
    c.http01_module_config_id = config;
    REQUIRE(store.certificates().update(c).ok());
  }
};

}  // namespace

TEST_CASE("http-01: served answers are in the shared tokens while the CA looks, gone after") {
  IssuanceHttp01 fx;
  std::vector<std::string> seen, tokens;
  fx.ca.whileHttp01Presented = [&](const ports::Http01Challenge& c) {
    auto found = fx.store.challengeTokens().find(c.token, fx.clock.now());
    REQUIRE(found.ok());
    seen.push_back(found->value_or("(none)"));
    tokens.push_back(c.token);
    CHECK(c.name == "www.example.test");
  };
  REQUIRE(*fx.http01Worker.runOnce(Lane::standard, "w1"));
  CHECK(fx.storedCert().status == CertificateStatus::active);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0] == tokens[0] + ".thumbprint");
  CHECK_FALSE(*fx.store.challengeTokens().find(tokens[0], fx.clock.now()));  // withdrawn
  CHECK(fx.logged(fx.job.id, "HTTP-01 answered by this service"));
}

TEST_CASE("http-01: webroot answers go onto every target and are removed, failures named") {
  IssuanceHttp01 fx;
  const Id config =
      webrootConfig(fx.store.moduleConfigs(), fx.ids, "file", {"web1", "web2"}, "/srv/www");
  fx.useWebroot(config);
  std::vector<std::string> onTargets;
  fx.ca.whileHttp01Presented = [&](const ports::Http01Challenge& c) {
    onTargets.push_back(fx.files.challengeFile("web1", c.token) + "|" +
                        fx.files.challengeFile("web2", c.token));
  };
  REQUIRE(*fx.http01Worker.runOnce(Lane::standard, "w1"));
  CHECK(fx.storedCert().status == CertificateStatus::active);
  REQUIRE(onTargets.size() == 1);
  CHECK(onTargets[0].find(".thumbprint|") != std::string::npos);
  CHECK(onTargets[0].ends_with(".thumbprint"));
  CHECK(fx.files.challengeFiles() == 0);  // withdrawn

  // A target that cannot be written fails the attempt naming it; nothing is left behind.
  auto again = fx.queueAnother({"shop.example.test"});
  auto other = *fx.store.certificates().get("p1", *again.certificate_id);
  other.challenge = ChallengeType::http_01;
  other.http01_module_config_id = config;
  REQUIRE(fx.store.certificates().update(other).ok());
  fx.files.failTarget("web2", domain::target_error::write_failed, 1);
  REQUIRE(*fx.http01Worker.runOnce(Lane::standard, "w1"));
  const auto job = *fx.store.jobs().get("p1", again.id);
  CHECK(job.error_msg.find("web2") != std::string::npos);
  CHECK(job.error_msg.find("HTTP-01") != std::string::npos);
  CHECK(fx.files.challengeFiles() == 0);
}

TEST_CASE("http-01: a webroot configuration in use by a certificate cannot be deleted") {
  Http01Fixture fx;
  ConfigurationServices config{
      {fx.store.acmeAccounts(), fx.store.dnsCredentials(), fx.store.zones(), fx.store.credentials(),
       fx.store.moduleConfigs(), fx.store.notificationChannels(), fx.store.notificationRules(),
       fx.store.distributions(), fx.secrets, fx.ids, fx.clock, &fx.store.certificates()},
      fx.work,
      fx.access,
      fx.audit,
      DistributionPolicy{{}, {"/srv"}}};
  // A file configuration as a form makes it: its files and, on its target, a webroot.
  ModuleConfig m;
  m.id = fx.ids.next();
  m.project_id = "p1";
  m.name = "local web";
  m.module = "file";
  m.settings = {{"fullchain_path", "/srv/certs/full.pem"}, {"key_path", "/srv/certs/key.pem"}};
  m.targets = {{"web1", {{"webroot", "/srv/www"}}, ""}};
  REQUIRE(fx.store.moduleConfigs().create(m).ok());
  const Id file = m.id;
  auto created = fx.served.create(fx.owner(), fx.ctx(), "p1", fx.http01("a.example.org", file));
  REQUIRE(created.ok());
  auto refused = config.modules.remove(fx.owner(), fx.ctx(), "p1", file);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::conflict);
  CHECK(refused.error().references ==
        std::vector<std::string>{"certificate " + created->certificate.id});
  CHECK(fx.store.moduleConfigs().get("p1", file).ok());
  // Nor changed so that a target has no webroot: the next renewal would fail.
  auto stripped = config.modules.update(
      fx.owner(), fx.ctx(), "p1", file,
      [](ModuleConfig& changed) { changed.targets[0].settings.erase("webroot"); }, std::nullopt);
  REQUIRE_FALSE(stripped.ok());
  REQUIRE(stripped.error().references.size() == 1);
  CHECK(stripped.error().references[0] == "settings.webroot");  // the field every form shows
  CHECK(stripped.error().message.find(created->certificate.id) != std::string::npos);
  const struct {
    const char* why;
    std::function<void(ModuleConfig&)> change;
    const char* field;
  } breaking[] = {
      {"no targets", [](ModuleConfig& c) { c.targets.clear(); }, "targets"},
  };
  for (const auto& row : breaking) {
    CAPTURE(row.why);
    auto broken = config.modules.update(fx.owner(), fx.ctx(), "p1", file, row.change, std::nullopt);
    REQUIRE_FALSE(broken.ok());
    CHECK(broken.error().code == ErrorCode::invalid_argument);
    REQUIRE_FALSE(broken.error().references.empty());
    CHECK(broken.error().references[0] == row.field);
    CHECK(broken.error().message.find(created->certificate.id) != std::string::npos);
  }
  // The webroot moved to the shared settings: still fine, and taking it away names that field.
  REQUIRE(config.modules
              .update(
                  fx.owner(), fx.ctx(), "p1", file,
                  [](ModuleConfig& c) {
                    c.settings["webroot"] = "/srv/www";
                    c.targets[0].settings.erase("webroot");
                  },
                  std::nullopt)
              .ok());
  auto shared = config.modules.update(
      fx.owner(), fx.ctx(), "p1", file, [](ModuleConfig& c) { c.settings.erase("webroot"); },
      std::nullopt);
  REQUIRE_FALSE(shared.ok());
  REQUIRE(shared.error().references.size() == 1);
  CHECK(shared.error().references[0] == "settings.webroot");
  // Once the certificate is gone, so can the configuration be.
  REQUIRE(fx.served.remove(fx.owner(), fx.ctx(), "p1", created->certificate.id).ok());
  CHECK(config.modules.remove(fx.owner(), fx.ctx(), "p1", file).ok());
}

TEST_CASE(
    "http-01: an instance that does not answer itself fails the job in words, ordering nothing") {
  IssuanceHttp01 fx;
  auto ports = fx.http01Ports();
  ports.challengeTokens = nullptr;  // acme.http01_listen not set here
  IssuanceJobHandler handler{ports, fx.policy};
  JobRunner worker{fx.runnerPorts({&handler}), fx.policy};
  REQUIRE(*worker.runOnce(Lane::standard, "w1"));
  CHECK(fx.ca.orders() == 0);
  CHECK(fx.storedJob().error_msg.find("acme.http01_listen") != std::string::npos);
  CHECK(fx.storedCert().status == CertificateStatus::issuing);
}
