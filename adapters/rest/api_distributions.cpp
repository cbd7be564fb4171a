// Distributions of a certificate and their actions (dry-run, execute, rollback), the module
// health check, the provider checks (ACME account validation and key rollover, the DNS
// credential test), and the zone's CA rate-limit report.
#include <certsteward/adapters/rest/api.hpp>
#include <certsteward/adapters/rest/jobs_json.hpp>
#include <certsteward/adapters/rest/json_io.hpp>
#include <certsteward/adapters/rest/resources_json.hpp>

#include <algorithm>
#include <chrono>

namespace certsteward::adapters::rest {
namespace {

json::array targetResultsJson(const std::vector<domain::TargetResult>& targets, bool withChanges) {
  json::array results;
  for (const auto& r : targets) {
    json::object o{{"target_name", r.target_name},
                   {"status", r.status},
                   {"error", r.error},
                   {"error_code", r.error_code},
                   {"duration_ms", r.duration_ms},
                   {"changed", r.changed},
                   {"rolled_back", r.rolled_back},
                   {"rollback_error", r.rollback_error}};
    if (withChanges) {
      json::array changes;
      for (const auto& change : r.changes)
        changes.push_back(json::object{{"what", change.what}, {"action", change.action}});
      o["changes"] = std::move(changes);
    }
    results.push_back(std::move(o));
  }
  return results;
}

json::object distributionJson(const domain::Distribution& d) {
  const json::array results = targetResultsJson(d.last_target_results, false);
  return {{"id", d.id},
          {"project_id", d.project_id},
          {"certificate_id", d.certificate_id},
          {"module_config_id", d.module_config_id},
          {"last_status", d.last_status},
          {"last_action", d.last_action},
          {"last_error", d.last_error},
          {"last_error_at", timestamp(d.last_error_at)},
          {"last_run_at", timestamp(d.last_run_at)},
          {"last_target_results", results},
          {"deployed_serial", d.deployed_serial},
          {"previous_serial", d.previous_serial},
          {"created_at", timestamp(d.created_at)},
          {"updated_at", timestamp(d.updated_at)}};
}

// A distribution with the names lists show beside its ids.
json::object viewJson(const services::DistributionView& d) {
  auto o = distributionJson(d);
  if (!d.certificate_name.empty()) o["certificate_name"] = d.certificate_name;
  if (!d.module_name.empty()) o["module_name"] = d.module_name;
  return o;
}

json::object usageJson(const services::QuotaUsage& u) {
  json::object o{
      {"used", u.used},
      {"window_seconds", std::chrono::duration_cast<std::chrono::seconds>(u.limit.window).count()}};
  if (u.limit.max > 0) {
    o["limit"] = u.limit.max;
    o["remaining"] = std::max<std::int64_t>(0, u.limit.max - u.used);
  } else {
    o["limit"] = nullptr;
    o["remaining"] = nullptr;
  }
  return o;
}

json::object quotaReportJson(const services::ZoneQuotaReport& r) {
  json::array directories;
  for (const auto& d : r.directories) {
    json::value last = nullptr;
    if (d.last_rate_limited) {
      const auto& n = *d.last_rate_limited;
      last = json::object{{"at", timestamp(n.at)},
                          {"retry_after", timestamp(n.retry_until)},
                          {"active", n.active},
                          {"detail", n.detail}};
    }
    directories.push_back(json::object{{"directory_url", d.directory_url},
                                       {"limits_source", d.limits_source},
                                       {"certificates", usageJson(d.certificates)},
                                       {"orders", usageJson(d.orders)},
                                       {"failed_validations", usageJson(d.failed_validations)},
                                       {"last_rate_limited", last}});
  }
  return {{"zone_id", r.zone_id},
          {"domain", r.domain},
          {"registered_domain", r.registered_domain},
          {"at", timestamp(r.at)},
          {"directories", directories}};
}

}  // namespace

void Api::addDistributionRoutes() {
  const std::string cert = "/api/v1/projects/:project_id/certificates/:cert_id/distributions";
  router_.add("GET", cert, [this](const Call& c) {
    auto list = s_.distributions.forCertificate(c.who(), c.param("project_id"), c.param("cert_id"));
    if (!list) return errorResponse(list.error());
    json::array items;  // docs/api.md: a bare array
    for (const auto& d : *list)
      items.push_back(viewJson(d));
    return jsonResponse(200, items);
  });
  router_.add("POST", cert, [this](const Call& c) {
    const auto body = parseBody(c.request);
    auto created =
        s_.distributions.create(c.who(), c.context, c.param("project_id"), c.param("cert_id"),
                                requiredString(body, "module_config_id", 64));
    if (!created) return errorResponse(created.error());
    return jsonResponse(201, json::object{{"distribution", distributionJson(*created)}});
  });
  router_.add("DELETE", cert + "/:dist_id", [this](const Call& c) {
    if (auto s = s_.distributions.remove(c.who(), c.context, c.param("project_id"),
                                         c.param("cert_id"), c.param("dist_id"));
        !s) {
      return errorResponse(s.error());
    }
    HttpResponse r;
    r.status = 204;
    return r;
  });
  router_.add("POST", cert + "/:dist_id/dry-run", [this](const Call& c) {
    auto results = s_.distributions.dryRun(c.who(), c.context, c.param("project_id"),
                                           c.param("cert_id"), c.param("dist_id"));
    if (!results) return errorResponse(results.error());
    const bool ok = std::all_of(results->begin(), results->end(),
                                [](const domain::TargetResult& r) { return r.status == "ok"; });
    return jsonResponse(200, json::object{{"distribution_id", c.param("dist_id")},
                                          {"ok", ok && !results->empty()},
                                          {"target_results", targetResultsJson(*results, true)}});
  });
  using Action = domain::Result<domain::Job> (services::DistributionService::*)(
      const services::Principal&, const services::RequestContext&, const domain::Id&,
      const domain::Id&, const domain::Id&);
  for (const auto& [path, method] :
       {std::pair<const char*, Action>{"/execute", &services::DistributionService::execute},
        std::pair<const char*, Action>{"/rollback", &services::DistributionService::rollback}}) {
    router_.add("POST", cert + "/:dist_id" + path, [this, method](const Call& c) {
      auto job = (s_.distributions.*method)(c.who(), c.context, c.param("project_id"),
                                            c.param("cert_id"), c.param("dist_id"));
      if (!job) return errorResponse(job.error());
      return jsonResponse(202, json::object{{"job", toJson(*job)}});
    });
  }
  router_.add("GET", "/api/v1/projects/:project_id/distributions", [this](const Call& c) {
    auto page = s_.distributions.list(c.who(), c.param("project_id"), pageFrom(c.request));
    if (!page) return errorResponse(page.error());
    return pageResponse("distributions", *page, viewJson);
  });

  // Account actions at the CA; each answers with the resource's own view (secrets masked),
  // read back after the update.
  using AccountAction = domain::Result<domain::AcmeAccount> (services::ProviderChecks::*)(
      const services::Principal&, const services::RequestContext&, const domain::Id&,
      const domain::Id&);
  for (const auto& [path, method] :
       {std::pair<const char*, AccountAction>{"validate",
                                              &services::ProviderChecks::validateAccount},
        std::pair<const char*, AccountAction>{"rollover-key",
                                              &services::ProviderChecks::rolloverAccountKey}}) {
    router_.add(
        "POST", std::string("/api/v1/projects/:project_id/acme-accounts/:id/") + path,
        [this, method](const Call& c) {
          auto done = (s_.checks.*method)(c.who(), c.context, c.param("project_id"), c.param("id"));
          if (!done) return errorResponse(done.error());
          auto view = s_.resources.acmeAccounts.get(c.who(), c.param("project_id"), c.param("id"));
          if (!view) return errorResponse(view.error());
          return jsonResponse(200, json::object{{"acme_account", acmeAccountJson(*view)}});
        });
  }
  router_.add(
      "POST", "/api/v1/projects/:project_id/dns-credentials/:id/test", [this](const Call& c) {
        auto check =
            s_.checks.testDnsCredential(c.who(), c.context, c.param("project_id"), c.param("id"));
        if (!check) return errorResponse(check.error());
        json::array steps;
        for (const auto& step : check->steps) {
          steps.push_back(
              json::object{{"name", step.name}, {"ok", step.ok}, {"message", step.message}});
        }
        return jsonResponse(200, json::object{{"ok", check->ok},
                                              {"zone", check->zone},
                                              {"record", check->record},
                                              {"steps", steps}});
      });
  router_.add("POST", "/api/v1/projects/:project_id/modules/:id/health", [this](const Call& c) {
    auto results =
        s_.distributions.health(c.who(), c.context, c.param("project_id"), c.param("id"));
    if (!results) return errorResponse(results.error());
    const bool ok = std::all_of(results->begin(), results->end(),
                                [](const domain::TargetResult& r) { return r.status == "ok"; });
    return jsonResponse(200, json::object{{"module_config_id", c.param("id")},
                                          {"healthy", ok && !results->empty()},
                                          {"target_results", targetResultsJson(*results, false)}});
  });
  router_.add("POST", "/api/v1/projects/:project_id/ssh-host-keys", [this](const Call& c) {
    const auto body = parseBody(c.request);
    for (const auto& [key, value] : body) {
      (void)value;
      if (key != "host" && key != "port") {
        throw BadRequest("unknown field: " + std::string(key).substr(0, 40));
      }
    }
    const std::string host = requiredString(body, "host", 253);
    std::int64_t port = 22;
    if (const auto* p = body.if_contains("port")) {
      if (!p->is_int64()) throw BadRequest("port must be an integer");
      port = p->as_int64();
    }
    auto key = s_.sshHostKeys.fetch(c.who(), c.context, c.param("project_id"), host,
                                    port < 0 || port > 65535 ? 0 : static_cast<int>(port));
    if (!key) return errorResponse(key.error());
    return jsonResponse(200, json::object{{"host", host},
                                          {"port", port},
                                          {"fingerprint", key->fingerprint},
                                          {"key_type", key->key_type}});
  });
  router_.add("GET", "/api/v1/projects/:project_id/zones/:id/rate-limits", [this](const Call& c) {
    auto report = s_.quotas.forZone(c.who(), c.param("project_id"), c.param("id"));
    if (!report) return errorResponse(report.error());
    return jsonResponse(200, quotaReportJson(*report));
  });
}

}  // namespace certsteward::adapters::rest
