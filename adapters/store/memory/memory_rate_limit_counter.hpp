// MemoryRateLimitCounter: fixed-window counters; windows that ended are dropped on each hit.
// Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <utility>

#include <certsteward/ports/rate_limit_counter.hpp>

namespace certsteward::adapters::memory {

class MemoryRateLimitCounter : public ports::RateLimitCounter {
 public:
  domain::Result<std::int64_t> hit(const std::string& bucket, domain::Duration window,
                                   domain::Timestamp now) override {
    if (window <= domain::Duration::zero()) {
      return domain::makeError(domain::ErrorCode::invalid_argument, "window must be positive");
    }
    const auto since = now.time_since_epoch();
    const domain::Timestamp start{since - since % window};
    std::lock_guard lock(mu_);
    std::erase_if(counts_, [&](const auto& kv) { return kv.second.second <= now; });
    auto& [count, end] = counts_[{bucket, start}];
    end = start + window;
    return ++count;
  }

 private:
  mutable std::mutex mu_;
  // (bucket, window start) -> (count, window end)
  std::map<std::pair<std::string, domain::Timestamp>, std::pair<std::int64_t, domain::Timestamp>>
      counts_;
};

}  // namespace certsteward::adapters::memory
