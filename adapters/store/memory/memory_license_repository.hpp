// MemoryLicenseRepository: the licence in force. Thread-safe.
#pragma once

#include <mutex>

#include <certsteward/adapters/store/memory/memory_transactions.hpp>
#include <certsteward/ports/license_repository.hpp>

namespace certsteward::adapters::memory {

class MemoryLicenseRepository : public ports::LicenseRepository {
 public:
  domain::Result<std::optional<domain::License>> get() const override {
    std::lock_guard lock(mu_);
    return license_;
  }
  domain::Status put(const domain::License& license) override {
    std::lock_guard lock(mu_);
    undoInTransaction([this, old = license_] {
      std::lock_guard relock(mu_);
      license_ = old;
    });
    license_ = license;
    return {};
  }

 private:
  mutable std::mutex mu_;
  std::optional<domain::License> license_;
};

}  // namespace certsteward::adapters::memory
