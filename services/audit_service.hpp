// AuditService: records every mutation under the acting user, lists entries, and verifies the
// chain page by page (docs/api.md: POST /audit-logs/verify, owner, 1 request per minute).
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/audit.hpp>
#include <certsteward/ports/audit_log.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/mac.hpp>
#include <certsteward/ports/rate_limit_counter.hpp>
#include <certsteward/services/access_control.hpp>
#include <certsteward/services/audit_sealer.hpp>

namespace certsteward::services {

// Who did it, from where: the part of an audit entry that comes from the request.
struct RequestContext {
  std::string ip;
  std::string request_id;
};

class AuditService {
 public:
  AuditService(ports::AuditLog& log, const ports::Mac& mac, ports::IdGenerator& ids,
               const ports::Clock& clock, ports::RateLimitCounter& rateLimits,
               const AccessControl& access)
      : log_(log),
        sealer_(mac),
        ids_(ids),
        clock_(clock),
        rateLimits_(rateLimits),
        access_(access) {}

  // Appends an entry for `action` ("project.create") on `resourceType`/`resourceId`; after every
  // kAuditCheckpointInterval-th entry, an `audit.checkpoint` entry naming that head as well.
  domain::Status record(const Principal* who, const RequestContext& ctx, std::string action,
                        std::string resourceType, std::string resourceId,
                        std::optional<domain::Id> projectId = std::nullopt,
                        std::string details = {});

  domain::Result<domain::Page<domain::AuditEntry>> list(const Principal& who,
                                                        const ports::AuditFilter& filter,
                                                        const domain::PageRequest& page);
  domain::Result<domain::AuditEntry> get(const Principal& who, const domain::Id& id);

  // Verifies up to `limit` (1..10000, default 1000) entries from `since`, each by its checksum
  // and its entry MAC; with `expected`, also that the chain still holds that head.
  domain::Result<domain::AuditVerification> verify(
      const Principal& who, std::optional<domain::Timestamp> since,
      std::optional<std::int64_t> limit,
      const std::optional<domain::AuditHead>& expected = std::nullopt);

  // The operator's offline check (`certsteward audit verify`, no principal: whoever can open the
  // store): the whole chain, page by page, each entry by its checksum and its entry MAC, then the
  // expected head when given. At most `maxBreaks` breaks are kept (verified still counts all).
  domain::Result<domain::AuditVerification> verifyWholeChain(
      const std::optional<domain::AuditHead>& expected, std::size_t maxBreaks = 100);

  // Cursor reads of the log in chain order: up to `limit` chain entries from `since` (the start
  // when nullopt), those matching `filter` returned, and where to go on from. A growing log is
  // walked without skipping or repeating entries (timestamps strictly increase along it).
  struct Walk {
    std::vector<domain::AuditEntry> entries;
    domain::Timestamp next{};  // the `since` of the next call
  };
  domain::Result<Walk> walk(const Principal& who, const ports::AuditFilter& filter,
                            std::optional<domain::Timestamp> since, std::int64_t limit);

  // The newest entry (the head to record elsewhere); nullopt while the log is empty.
  domain::Result<std::optional<domain::AuditEntry>> head(const Principal& who);

 private:
  ports::AuditLog& log_;
  AuditSealer sealer_;
  ports::IdGenerator& ids_;
  const ports::Clock& clock_;
  ports::RateLimitCounter& rateLimits_;
  const AccessControl& access_;
};

}  // namespace certsteward::services
