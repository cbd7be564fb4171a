// MemorySettingsRepository: settings documents by key. Thread-safe.
#pragma once

#include <map>
#include <mutex>

#include <certsteward/adapters/store/memory/memory_transactions.hpp>
#include <certsteward/ports/settings_repository.hpp>

namespace certsteward::adapters::memory {

class MemorySettingsRepository : public ports::SettingsRepository {
 public:
  domain::Result<std::optional<domain::Setting>> get(const std::string& key) const override {
    std::lock_guard lock(mu_);
    const auto it = items_.find(key);
    if (it == items_.end()) return std::optional<domain::Setting>{};
    return std::optional<domain::Setting>{it->second};
  }
  domain::Status put(const domain::Setting& setting) override {
    std::lock_guard lock(mu_);
    const auto it = items_.find(setting.key);
    std::optional<domain::Setting> old;
    if (it != items_.end()) old = it->second;
    undoInTransaction([this, key = setting.key, old] {
      std::lock_guard relock(mu_);
      if (old) {
        items_[key] = *old;
      } else {
        items_.erase(key);
      }
    });
    items_[setting.key] = setting;
    return {};
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, domain::Setting> items_;
};

}  // namespace certsteward::adapters::memory
