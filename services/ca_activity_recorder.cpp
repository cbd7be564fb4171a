#include <certsteward/services/ca_activity_recorder.hpp>

#include <certsteward/domain/issuance_policy.hpp>

#include <algorithm>

namespace certsteward::services {

std::vector<std::string> CaActivityRecorder::registeredDomains(
    const std::vector<std::string>& names) const {
  std::vector<std::string> out;
  for (const auto& name : names) {
    // An IP address is its own bucket (a public suffix list would cut it at its last labels).
    auto domain = domain::isIpIdentifier(name) ? name : p_.suffixes.registeredDomain(name);
    if (std::find(out.begin(), out.end(), domain) == out.end()) out.push_back(std::move(domain));
  }
  return out;
}

std::optional<domain::CaActivity> CaActivityRecorder::activeRateLimit(
    const domain::AcmeAccount& account, const std::vector<std::string>& domains,
    const JobHandler::Log& log) const {
  std::optional<domain::CaActivity> holding;
  for (const auto& domain : domains) {
    auto hold = p_.activity.activeHold(account.directory_url, domain, account.id, p_.clock.now());
    if (!hold) {  // the order goes ahead: the CA itself will say if the limit still holds
      log(domain::LogLevel::warn,
          "the CA's rate limits for " + domain + " could not be read: " + hold.error().message);
      continue;
    }
    if (*hold && (!holding || *(*hold)->retry_until > *holding->retry_until)) holding = **hold;
  }
  return holding;
}

void CaActivityRecorder::record(const domain::Job& job, const domain::AcmeAccount& account,
                                const std::vector<std::string>& domains,
                                const ports::IssueReport& report, bool issued, AttemptNotes& notes,
                                const JobHandler::Log& log) {
  const auto now = p_.clock.now();
  if (report.rate_limited && report.retry_after) notes.not_before = now + *report.retry_after;
  std::vector<domain::CaActivity> records;
  const auto add = [&](const std::string& domain, domain::CaActivityKind kind, std::string detail) {
    domain::CaActivity a;
    a.id = p_.ids.next();
    a.directory_url = account.directory_url;
    a.account_id = account.id;
    a.registered_domain = domain;
    a.kind = kind;
    a.at = now;
    a.project_id = job.project_id;
    a.detail = std::move(detail);
    if (kind == domain::CaActivityKind::rate_limited) a.retry_until = notes.not_before;
    records.push_back(std::move(a));
  };
  for (const auto& domain : domains) {
    for (int i = 0; i < report.orders_created; ++i)
      add(domain, domain::CaActivityKind::order_created, {});
    if (issued) add(domain, domain::CaActivityKind::certificate_issued, {});
    // The CA did not say which registered domain it limited: every one of the order holds back.
    if (report.rate_limited)
      add(domain, domain::CaActivityKind::rate_limited, report.rate_limit_detail);
  }
  for (const auto& name : report.failed_validations) {
    add(p_.suffixes.registeredDomain(name), domain::CaActivityKind::validation_failed, name);
  }
  for (const auto& entry : records) {
    if (auto stored = p_.activity.record(entry); !stored) {
      log(domain::LogLevel::warn, "the CA's " + std::string(nameOf(entry.kind)) + " for " +
                                      entry.registered_domain +
                                      " could not be recorded: " + stored.error().message);
    }
  }
  if (report.rate_limited) {
    log(domain::LogLevel::warn,
        notes.not_before
            ? "the CA asks not to retry before " + domain::formatTimestamp(*notes.not_before) +
                  ": no order for these domains goes to it through this account before then"
            : "the CA refused with a rate limit and named no time: the usual backoff applies");
  }
}

}  // namespace certsteward::services
