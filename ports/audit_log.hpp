// AuditLog: the append-only, HMAC-chained record of every mutation.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/audit.hpp>
#include <certsteward/domain/pagination.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

struct AuditFilter {
  std::optional<std::string> action;
  std::optional<std::string> resource_type;
  std::optional<domain::Id> actor_user_id;
  std::optional<domain::Id> project_id;
  std::optional<domain::Timestamp> since;  // entries at or after this instant
  std::optional<domain::Timestamp> until;  // entries before this instant
};

// Whether `e` is one `filter` selects (for stores and walks that filter in memory).
inline bool matches(const AuditFilter& filter, const domain::AuditEntry& e) {
  return (!filter.action || e.action == *filter.action) &&
         (!filter.resource_type || e.resource_type == *filter.resource_type) &&
         (!filter.actor_user_id || e.actor_user_id == *filter.actor_user_id) &&
         (!filter.project_id || e.project_id == filter.project_id) &&
         (!filter.since || e.timestamp >= *filter.since) &&
         (!filter.until || e.timestamp < *filter.until);
}

struct AuditChainPage {
  std::vector<domain::AuditEntry> entries;      // chain order
  std::string predecessor_checksum;             // of the entry before entries[0]; "" at the start
  std::optional<domain::Timestamp> next_since;  // timestamp of the first entry after the page
};

class AuditLog {
 public:
  virtual ~AuditLog() = default;

  /**
   * Appends `draft` at the end of the chain: assigns `sequence`, makes the timestamp strictly
   * later than the last entry's (domain::chainTimestamp, so `since` is exact), computes
   * `checksum` with `sealer` from the current last entry, and stores it. Appends are serialized —
   * two writers (threads, processes, instances) never chain onto the same predecessor.
   * @return the stored entry; conflict when the id exists. Thread-safe.
   */
  virtual domain::Result<domain::AuditEntry> append(const domain::AuditEntry& draft,
                                                    const domain::AuditChainSealer& sealer) = 0;

  /** @return one entry; not_found. */
  virtual domain::Result<domain::AuditEntry> get(const domain::Id& id) const = 0;

  /** @return the newest entry of the chain; nullopt while the log is empty. Thread-safe. */
  virtual domain::Result<std::optional<domain::AuditEntry>> head() const = 0;

  /** @return the entry at `sequence`; nullopt when the chain has none there. Thread-safe. */
  virtual domain::Result<std::optional<domain::AuditEntry>> atSequence(
      std::int64_t sequence) const = 0;

  /** @return one page matching `filter`, newest first. */
  virtual domain::Result<domain::Page<domain::AuditEntry>> list(
      const AuditFilter& filter, const domain::PageRequest& page) const = 0;

  /**
   * @return up to `limit` entries in chain order starting with the first whose timestamp is
   * >= `since` (from the beginning when nullopt), with the predecessor's checksum.
   */
  virtual domain::Result<AuditChainPage> chainPage(std::optional<domain::Timestamp> since,
                                                   std::int64_t limit) const = 0;
};

}  // namespace certsteward::ports
