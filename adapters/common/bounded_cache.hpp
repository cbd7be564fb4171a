// BoundedCache: a small thread-safe map whose entries expire at a given time and whose size is
// capped (when full, expired entries go first, then everything). For read-through caches of
// values that are cheap to hold and costly to recompute: verified tokens, users by id.
#pragma once

#include <cstddef>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::common {

template <class V>
class BoundedCache {
 public:
  explicit BoundedCache(std::size_t capacity) : capacity_(capacity) {}

  std::optional<V> find(const std::string& key, domain::Timestamp now) const {
    std::lock_guard lock(mutex_);
    const auto it = entries_.find(key);
    if (it == entries_.end() || it->second.until <= now) return std::nullopt;
    return it->second.value;
  }

  void put(const std::string& key, V value, domain::Timestamp until, domain::Timestamp now) {
    std::lock_guard lock(mutex_);
    if (entries_.size() >= capacity_ && !entries_.contains(key)) {
      std::erase_if(entries_, [now](const auto& e) { return e.second.until <= now; });
      if (entries_.size() >= capacity_) entries_.clear();
    }
    entries_.insert_or_assign(key, Entry{std::move(value), until});
  }

  void erase(const std::string& key) {
    std::lock_guard lock(mutex_);
    entries_.erase(key);
  }

  std::size_t size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
  }

 private:
  struct Entry {
    V value;
    domain::Timestamp until;
  };
  const std::size_t capacity_;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, Entry> entries_;
};

}  // namespace certsteward::adapters::common
