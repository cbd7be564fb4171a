// MemoryLeaderLock: named leases. Thread-safe (one process: use it for tests and embedding).
#pragma once

#include <map>
#include <mutex>

#include <certsteward/ports/leader_lock.hpp>

namespace certsteward::adapters::memory {

class MemoryLeaderLock : public ports::LeaderLock {
 public:
  domain::Result<bool> tryAcquire(const std::string& name, const std::string& holder,
                                  domain::Timestamp now, domain::Duration ttl) override {
    std::lock_guard lock(mu_);
    auto& lease = leases_[name];
    if (lease.holder.empty() || lease.expires_at <= now || lease.holder == holder) {
      lease.holder = holder;
      lease.expires_at = now + ttl;
      return true;
    }
    return false;
  }

  domain::Status release(const std::string& name, const std::string& holder) override {
    std::lock_guard lock(mu_);
    const auto it = leases_.find(name);
    if (it != leases_.end() && it->second.holder == holder) leases_.erase(it);
    return {};
  }

  domain::Result<std::optional<std::string>> holder(const std::string& name,
                                                    domain::Timestamp now) const override {
    std::lock_guard lock(mu_);
    const auto it = leases_.find(name);
    if (it == leases_.end() || it->second.expires_at <= now) return std::optional<std::string>{};
    return std::optional<std::string>{it->second.holder};
  }

 private:
  struct Lease {
    std::string holder;
    domain::Timestamp expires_at{};
  };
  mutable std::mutex mu_;
  std::map<std::string, Lease> leases_;
};

}  // namespace certsteward::adapters::memory
