// MemoryIdempotencyStore: idempotency records by key; expired ones are dropped on write.
// Thread-safe.
#pragma once

#include <map>
#include <mutex>

#include <certsteward/ports/idempotency_store.hpp>

namespace certsteward::adapters::memory {

class MemoryIdempotencyStore : public ports::IdempotencyStore {
 public:
  domain::Result<std::optional<domain::IdempotencyRecord>> find(
      const std::string& key, domain::Timestamp now) const override {
    std::lock_guard lock(mu_);
    const auto it = items_.find(key);
    if (it == items_.end() || it->second.expires_at <= now) {
      return std::optional<domain::IdempotencyRecord>{};
    }
    return std::optional<domain::IdempotencyRecord>{it->second};
  }

  domain::Status save(const domain::IdempotencyRecord& record, domain::Timestamp now) override {
    std::lock_guard lock(mu_);
    std::erase_if(items_, [&](const auto& kv) { return kv.second.expires_at <= now; });
    if (!items_.emplace(record.key, record).second) {
      return domain::makeError(domain::ErrorCode::conflict,
                               "a request with this Idempotency-Key is already recorded");
    }
    return {};
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, domain::IdempotencyRecord> items_;
};

}  // namespace certsteward::adapters::memory
