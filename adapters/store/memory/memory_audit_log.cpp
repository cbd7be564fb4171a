// In-memory audit chain.
#include <certsteward/adapters/store/memory/memory_audit_log.hpp>

#include <algorithm>

#include <certsteward/adapters/store/memory/memory_transactions.hpp>
#include <certsteward/adapters/store/memory/paginate.hpp>

namespace certsteward::adapters::memory {

domain::Result<domain::AuditEntry> MemoryAuditLog::append(const domain::AuditEntry& draft,
                                                          const domain::AuditChainSealer& sealer) {
  std::lock_guard lock(mu_);
  if (positionById_.count(draft.id) != 0) {
    return domain::makeError(domain::ErrorCode::conflict, "an audit entry with this id exists");
  }
  domain::AuditEntry entry = draft;
  const std::string previous = chain_.empty() ? std::string{} : chain_.back().checksum;
  if (!chain_.empty())
    entry.timestamp = domain::chainTimestamp(chain_.back().timestamp, entry.timestamp);
  entry.sequence = static_cast<std::int64_t>(chain_.size()) + 1;
  sealer.seal(previous, entry);
  positionById_.emplace(entry.id, chain_.size());
  chain_.push_back(entry);
  // Transactions are serialised, so nothing was appended after this entry when it is undone.
  undoInTransaction([this, id = entry.id] {
    std::lock_guard relock(mu_);
    if (!chain_.empty() && chain_.back().id == id) {
      chain_.pop_back();
      positionById_.erase(id);
    }
  });
  return entry;
}

domain::Result<domain::AuditEntry> MemoryAuditLog::get(const domain::Id& id) const {
  std::lock_guard lock(mu_);
  if (const auto it = positionById_.find(id); it != positionById_.end()) return chain_[it->second];
  return domain::makeError(domain::ErrorCode::not_found, "audit entry not found");
}

domain::Result<domain::Page<domain::AuditEntry>> MemoryAuditLog::list(
    const ports::AuditFilter& filter, const domain::PageRequest& page) const {
  std::vector<domain::AuditEntry> selected;
  {
    std::lock_guard lock(mu_);
    for (auto it = chain_.rbegin(); it != chain_.rend(); ++it) {
      if (ports::matches(filter, *it)) selected.push_back(*it);
    }
  }
  return paginate(std::move(selected), page);
}

domain::Result<ports::AuditChainPage> MemoryAuditLog::chainPage(
    std::optional<domain::Timestamp> since, std::int64_t limit) const {
  std::lock_guard lock(mu_);
  ports::AuditChainPage page;
  std::size_t start = 0;
  if (since) {  // timestamps strictly increase along the chain
    start = static_cast<std::size_t>(
        std::partition_point(chain_.begin(), chain_.end(),
                             [&](const domain::AuditEntry& e) { return e.timestamp < *since; }) -
        chain_.begin());
  }
  if (start > 0) page.predecessor_checksum = chain_[start - 1].checksum;
  const std::size_t end = std::min(chain_.size(), start + static_cast<std::size_t>(limit));
  page.entries.assign(chain_.begin() + static_cast<std::ptrdiff_t>(start),
                      chain_.begin() + static_cast<std::ptrdiff_t>(end));
  if (end < chain_.size()) page.next_since = chain_[end].timestamp;
  return page;
}

domain::Result<std::optional<domain::AuditEntry>> MemoryAuditLog::head() const {
  std::lock_guard lock(mu_);
  if (chain_.empty()) return std::optional<domain::AuditEntry>{};
  return std::optional<domain::AuditEntry>{chain_.back()};
}

domain::Result<std::optional<domain::AuditEntry>> MemoryAuditLog::atSequence(
    std::int64_t sequence) const {
  std::lock_guard lock(mu_);
  // Entries are kept in chain order, but a test may have removed some: search by sequence.
  for (const auto& e : chain_) {
    if (e.sequence == sequence) return std::optional<domain::AuditEntry>{e};
  }
  return std::optional<domain::AuditEntry>{};
}

}  // namespace certsteward::adapters::memory
