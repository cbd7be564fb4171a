// GenerationMemo: remembers each project's certificate generation for a short time (default
// 100 ms) so that a burst of reads asks the store once. The owner calls invalidate() after each
// of its own writes, so this process always sees its own writes at once; writes by other
// processes on the same store are seen within the time to live. A read that raced with a local
// write is not remembered (write tickets). Thread-safe; header-only, used by store adapters.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace certsteward::adapters::common {

class GenerationMemo {
 public:
  using Clock = std::chrono::steady_clock;

  explicit GenerationMemo(std::chrono::milliseconds ttl = std::chrono::milliseconds{100},
                          std::size_t capacity = 10000)
      : ttl_(ttl), capacity_(capacity) {}

  // Take before reading the store; pass to remember().
  std::uint64_t ticket() const { return writes_.load(std::memory_order_acquire); }

  std::optional<std::int64_t> find(const std::string& project) const {
    if (ttl_.count() <= 0) return std::nullopt;
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(project);
    if (it == entries_.end() || Clock::now() >= it->second.until) return std::nullopt;
    return it->second.generation;
  }

  void remember(const std::string& project, std::int64_t generation, std::uint64_t ticket) {
    if (ttl_.count() <= 0) return;
    std::lock_guard lock(mutex_);
    if (writes_.load(std::memory_order_acquire) != ticket) return;  // a local write raced us
    if (entries_.size() >= capacity_) entries_.clear();
    entries_.insert_or_assign(project, Entry{generation, Clock::now() + ttl_});
  }

  void invalidate(const std::string& project) {
    std::lock_guard lock(mutex_);
    writes_.fetch_add(1, std::memory_order_acq_rel);
    entries_.erase(project);
  }

 private:
  struct Entry {
    std::int64_t generation;
    Clock::time_point until;
  };
  const std::chrono::milliseconds ttl_;
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
  std::atomic<std::uint64_t> writes_{0};
};

}  // namespace certsteward::adapters::common
