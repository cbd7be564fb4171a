// Audit recording, listing and verification.
#include <certsteward/services/audit_service.hpp>

namespace certsteward::services {

domain::Status AuditService::record(const Principal* who, const RequestContext& ctx,
                                    std::string action, std::string resourceType,
                                    std::string resourceId, std::optional<domain::Id> projectId,
                                    std::string details) {
  domain::AuditEntry e;
  e.id = ids_.next();
  e.timestamp = clock_.now();
  e.action = std::move(action);
  e.resource_type = std::move(resourceType);
  e.resource_id = std::move(resourceId);
  e.project_id = std::move(projectId);
  if (who != nullptr) {
    e.actor_user_id = who->user.id;
    e.actor_username = who->user.username;
  }
  e.ip = ctx.ip;
  e.request_id = ctx.request_id;
  e.details = std::move(details);
  auto appended = log_.append(e, sealer_);
  if (!appended) return appended.error();
  if (appended->sequence % domain::kAuditCheckpointInterval == 0) {
    domain::AuditEntry checkpoint;
    checkpoint.id = ids_.next();
    checkpoint.timestamp = clock_.now();
    checkpoint.action = "audit.checkpoint";
    checkpoint.resource_type = "audit_log";
    checkpoint.resource_id = std::to_string(appended->sequence);
    checkpoint.details =
        "head sequence=" + std::to_string(appended->sequence) + " checksum=" + appended->checksum;
    if (auto written = log_.append(checkpoint, sealer_); !written) return written.error();
  }
  return {};
}

domain::Result<AuditService::Walk> AuditService::walk(const Principal& who,
                                                      const ports::AuditFilter& filter,
                                                      std::optional<domain::Timestamp> since,
                                                      std::int64_t limit) {
  if (auto s = access_.check(who, Action::read_audit_log); !s) return s.error();
  auto page = log_.chainPage(since, limit);
  if (!page) return page.error();
  Walk out;
  out.next = since.value_or(domain::Timestamp{});
  for (auto& e : page->entries) {
    out.next = e.timestamp + domain::Duration{1};
    if (ports::matches(filter, e)) out.entries.push_back(std::move(e));
  }
  if (page->next_since) out.next = *page->next_since;
  return out;
}

domain::Result<std::optional<domain::AuditEntry>> AuditService::head(const Principal& who) {
  if (auto s = access_.check(who, Action::read_audit_log); !s) return s.error();
  return log_.head();
}

domain::Result<domain::Page<domain::AuditEntry>> AuditService::list(
    const Principal& who, const ports::AuditFilter& filter, const domain::PageRequest& page) {
  if (auto s = access_.check(who, Action::read_audit_log); !s) return s.error();
  return log_.list(filter, page);
}

domain::Result<domain::AuditEntry> AuditService::get(const Principal& who, const domain::Id& id) {
  if (auto s = access_.check(who, Action::read_audit_log); !s) return s.error();
  return log_.get(id);
}

domain::Result<domain::AuditVerification> AuditService::verify(
    const Principal& who, std::optional<domain::Timestamp> since, std::optional<std::int64_t> limit,
    const std::optional<domain::AuditHead>& expected) {
  if (auto s = access_.check(who, Action::verify_audit_log); !s) return s.error();
  const std::int64_t n = limit.value_or(1000);
  if (n < 1 || n > 10000) {
    return makeError(domain::ErrorCode::invalid_argument, "limit must be between 1 and 10000");
  }
  auto count =
      rateLimits_.hit("audit-verify:" + who.user.id, std::chrono::minutes{1}, clock_.now());
  if (!count) return count.error();
  if (*count > 1) {
    return makeError(domain::ErrorCode::resource_exhausted,
                     "audit verification is limited to 1 request per minute", "RATE_LIMITED");
  }
  auto page = log_.chainPage(since, n);
  if (!page) return page.error();
  auto result =
      verifyAuditPage(sealer_, page->predecessor_checksum, page->entries, page->next_since);
  if (expected) {
    auto atHead = log_.atSequence(expected->sequence);
    if (!atHead) return atHead.error();
    checkAuditHead(*expected, *atHead, result);
  }
  return result;
}

domain::Result<domain::AuditVerification> AuditService::verifyWholeChain(
    const std::optional<domain::AuditHead>& expected, std::size_t maxBreaks) {
  domain::AuditVerification total;
  std::optional<domain::Timestamp> since;
  for (;;) {
    auto page = log_.chainPage(since, 10000);
    if (!page) return page.error();
    const auto result =
        verifyAuditPage(sealer_, page->predecessor_checksum, page->entries, page->next_since);
    total.verified += result.verified;
    total.intact = total.intact && result.intact;
    for (const auto& b : result.breaks) {
      if (total.breaks.size() < maxBreaks) total.breaks.push_back(b);
    }
    if (!result.next_since) break;
    since = result.next_since;
  }
  if (expected) {
    auto atHead = log_.atSequence(expected->sequence);
    if (!atHead) return atHead.error();
    checkAuditHead(*expected, *atHead, total);
  }
  return total;
}

}  // namespace certsteward::services
