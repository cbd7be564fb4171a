// The zone rate-limit report.
#include <certsteward/services/ca_quota_service.hpp>

#include <algorithm>

namespace certsteward::services {

domain::Result<ZoneQuotaReport> CaQuotaService::forZone(const Principal& who,
                                                        const domain::Id& projectId,
                                                        const domain::Id& zoneId) const {
  if (auto s = access_.check(who, Action::read_project, projectId); !s) return s.error();
  auto zone = p_.zones.get(projectId, zoneId);
  if (!zone) return zone.error();
  ZoneQuotaReport report;
  report.zone_id = zone->id;
  report.domain = zone->domain;
  report.registered_domain = p_.suffixes.registeredDomain(zone->domain);
  report.at = p_.clock.now();

  std::vector<std::string> directories;
  constexpr std::int64_t kPageSize = 100;
  for (std::int64_t page = 1; page <= 50; ++page) {  // bounded: 5,000 accounts
    auto accounts = p_.accounts.list(projectId, domain::PageRequest{page, kPageSize});
    if (!accounts) return accounts.error();
    for (const auto& a : accounts->items) {
      if (std::find(directories.begin(), directories.end(), a.directory_url) == directories.end()) {
        directories.push_back(a.directory_url);
      }
    }
    if (page * kPageSize >= accounts->total || accounts->items.empty()) break;
  }
  std::sort(directories.begin(), directories.end());

  domain::CaProviderList providers;
  if (p_.providers != nullptr) {
    auto stored = p_.providers->get();
    if (!stored) return stored.error();
    if (*stored) providers = **stored;
  }
  for (const auto& url : directories) {
    auto limits = quotaLimitsFor(url, configured_);
    // What the operator configured wins; else the limits the CA provider publishes, kind by kind.
    if (const auto* provider = domain::findCaProviderByUrl(providers, url);
        provider != nullptr && limits.source != "configured") {
      const auto take = [&](domain::QuotaLimit& into, const domain::QuotaLimit& from) {
        if (from.max <= 0) return false;
        into = from;
        return true;
      };
      const auto& published = provider->rate_limits;
      const bool any = take(limits.certificates, published.certificates) |
                       take(limits.orders, published.orders) |
                       take(limits.failed_validations, published.failed_validations);
      if (any) limits.source = "provider";
    }
    DirectoryQuota q;
    q.directory_url = url;
    q.limits_source = limits.source;
    const auto usage = [&](domain::CaActivityKind kind,
                           const domain::QuotaLimit& limit) -> domain::Result<QuotaUsage> {
      auto used = p_.activity.count(url, report.registered_domain, kind, report.at - limit.window);
      if (!used) return used.error();
      return QuotaUsage{*used, limit};
    };
    auto certificates = usage(domain::CaActivityKind::certificate_issued, limits.certificates);
    if (!certificates) return certificates.error();
    auto orders = usage(domain::CaActivityKind::order_created, limits.orders);
    if (!orders) return orders.error();
    auto failures = usage(domain::CaActivityKind::validation_failed, limits.failed_validations);
    if (!failures) return failures.error();
    q.certificates = *certificates;
    q.orders = *orders;
    q.failed_validations = *failures;
    auto last =
        p_.activity.latest(url, report.registered_domain, domain::CaActivityKind::rate_limited);
    if (!last) return last.error();
    if (*last) {
      RateLimitNotice notice;
      notice.at = (*last)->at;
      notice.retry_until = (*last)->retry_until;
      notice.active = notice.retry_until && *notice.retry_until > report.at;
      // The CA's words name the refused order's names: another project's stay its own.
      notice.detail = (*last)->project_id == projectId
                          ? (*last)->detail
                          : "the CA refused an order of another project for this domain";
      q.last_rate_limited = std::move(notice);
    }
    report.directories.push_back(std::move(q));
  }
  return report;
}

}  // namespace certsteward::services
