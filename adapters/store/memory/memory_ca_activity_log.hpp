// MemoryCaActivityLog: CA activity in a vector; records past the retention are dropped on each
// write. Thread-safe.
#pragma once

#include <algorithm>
#include <mutex>
#include <vector>

#include <certsteward/ports/ca_activity_log.hpp>

namespace certsteward::adapters::memory {

class MemoryCaActivityLog : public ports::CaActivityLog {
 public:
  domain::Status record(const domain::CaActivity& activity) override {
    std::lock_guard lock(mu_);
    std::erase_if(records_, [&](const domain::CaActivity& r) {
      return r.at < activity.at - domain::kCaActivityRetention;
    });
    records_.push_back(activity);
    return {};
  }

  domain::Result<std::int64_t> count(const std::string& directoryUrl,
                                     const std::string& registeredDomain,
                                     domain::CaActivityKind kind,
                                     domain::Timestamp since) const override {
    std::lock_guard lock(mu_);
    return static_cast<std::int64_t>(
        std::count_if(records_.begin(), records_.end(), [&](const domain::CaActivity& r) {
          return matches(r, directoryUrl, registeredDomain, kind) && r.at >= since;
        }));
  }

  domain::Result<std::optional<domain::CaActivity>> latest(
      const std::string& directoryUrl, const std::string& registeredDomain,
      domain::CaActivityKind kind) const override {
    std::lock_guard lock(mu_);
    const domain::CaActivity* newest = nullptr;
    for (const auto& r : records_) {
      if (matches(r, directoryUrl, registeredDomain, kind) &&
          (newest == nullptr || r.at > newest->at || (r.at == newest->at && r.id > newest->id))) {
        newest = &r;
      }
    }
    if (newest == nullptr) return std::optional<domain::CaActivity>();
    return std::optional<domain::CaActivity>(*newest);
  }

  domain::Result<std::optional<domain::CaActivity>> activeHold(
      const std::string& directoryUrl, const std::string& registeredDomain,
      const domain::Id& accountId, domain::Timestamp now) const override {
    std::lock_guard lock(mu_);
    const domain::CaActivity* furthest = nullptr;
    for (const auto& r : records_) {
      if (matches(r, directoryUrl, registeredDomain, domain::CaActivityKind::rate_limited) &&
          r.account_id == accountId && r.retry_until && *r.retry_until > now &&
          (furthest == nullptr || *r.retry_until > *furthest->retry_until)) {
        furthest = &r;
      }
    }
    if (furthest == nullptr) return std::optional<domain::CaActivity>();
    return std::optional<domain::CaActivity>(*furthest);
  }

 private:
  static bool matches(const domain::CaActivity& r, const std::string& directoryUrl,
                      const std::string& registeredDomain, domain::CaActivityKind kind) {
    return r.kind == kind && r.directory_url == directoryUrl &&
           r.registered_domain == registeredDomain;
  }

  mutable std::mutex mu_;
  std::vector<domain::CaActivity> records_;
};

}  // namespace certsteward::adapters::memory
