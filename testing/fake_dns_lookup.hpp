// FakeDnsLookup: CNAME and CAA records held in maps (lower case, no trailing dots), and
// a switch that makes every lookup fail as an unreachable resolver would. Counts its lookups.
#pragma once

#include <algorithm>
#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include <certsteward/ports/dns_lookup.hpp>

namespace certsteward::testing {

class FakeDnsLookup : public ports::DnsLookup {
 public:
  void alias(const std::string& name, const std::string& target) {
    std::lock_guard lock(mutex_);
    cnames_[name] = target;
  }
  void failing(bool on) { failing_ = on; }
  // Lookups of `name` are answered with an error by the resolvers (SERVFAIL): that name only.
  void failFor(const std::string& name) {
    std::lock_guard lock(mutex_);
    failingNames_.push_back(name);
  }
  int lookups() const { return lookups_; }
  // The CAA records of `name` (answered for it alone: callers climb).
  void caa(const std::string& name, std::vector<domain::CaaRecord> records) {
    std::lock_guard lock(mutex_);
    caa_[name] = std::move(records);
  }
  // The names whose CAA was asked, in order.
  std::vector<std::string> caaAsked() {
    std::lock_guard lock(mutex_);
    return caaAsked_;
  }

  domain::Result<std::vector<domain::CaaRecord>> caaOf(const std::string& name) override {
    if (failing_) {
      return domain::makeError(domain::ErrorCode::unavailable, "no resolver answered",
                               ports::kResolversDown);
    }
    std::lock_guard lock(mutex_);
    caaAsked_.push_back(name);
    const auto it = caa_.find(name);
    if (it == caa_.end()) return std::vector<domain::CaaRecord>();
    return it->second;
  }

  domain::Result<std::optional<std::string>> cnameOf(const std::string& name) override {
    ++lookups_;
    if (failing_) {
      return domain::makeError(domain::ErrorCode::unavailable, "no resolver answered",
                               ports::kResolversDown);
    }
    std::string key = name;
    if (!key.empty() && key.back() == '.') key.pop_back();
    std::lock_guard lock(mutex_);
    if (std::find(failingNames_.begin(), failingNames_.end(), key) != failingNames_.end()) {
      return domain::makeError(domain::ErrorCode::unavailable,
                               "the resolver answered SERVFAIL for " + key);
    }
    const auto it = cnames_.find(key);
    if (it == cnames_.end()) return std::optional<std::string>();
    return std::optional<std::string>(it->second);
  }

 private:
  std::mutex mutex_;
  std::map<std::string, std::string> cnames_;
  std::map<std::string, std::vector<domain::CaaRecord>> caa_;
  std::vector<std::string> caaAsked_;
  std::vector<std::string> failingNames_;
  std::atomic<bool> failing_{false};
  std::atomic<int> lookups_{0};
};

}  // namespace certsteward::testing
