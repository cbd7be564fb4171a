// A distribution module for tests of the distribution services (this project's and an embedding
// team's): targets are names in memory that hold a serial. It behaves like the real modules —
// a target keeps what a deliver replaced, restore puts it back, a failing target is left as it
// was — and fails on request with any target error code. HTTP-01 files are kept per target.
// Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/ports/distribution_module.hpp>
#include <certsteward/ports/distribution_modules.hpp>

namespace certsteward::testing {

class FakeDistributionModule : public ports::DistributionModule {
 public:
  // rollback: whether restore() exists; needsPrevious: whether it uses the service's version
  // (like haproxy and webhook) instead of what the target kept (like ssh and file).
  explicit FakeDistributionModule(bool rollback = true, bool needsPrevious = false)
      : rollback_(rollback), needsPrevious_(needsPrevious) {}

  // The target's next `times` calls (deliver, restore, plan, check; -1: all) fail with `code`.
  void failTarget(const std::string& target, std::string code, int times = -1) {
    std::lock_guard lock(mu_);
    failing_[target] = {std::move(code), times};
  }
  void heal(const std::string& target) {
    std::lock_guard lock(mu_);
    failing_.erase(target);
  }
  // The serial the target serves ("" when nothing was delivered).
  std::string served(const std::string& target) const {
    std::lock_guard lock(mu_);
    const auto it = served_.find(target);
    return it == served_.end() ? std::string() : it->second;
  }
  int calls(std::string_view what) const {
    std::lock_guard lock(mu_);
    const auto it = calls_.find(std::string(what));
    return it == calls_.end() ? 0 : it->second;
  }
  // The private key and credential secret the last deliver was handed.
  std::string lastKey() const {
    std::lock_guard lock(mu_);
    return lastKey_;
  }
  std::string lastSecret() const {
    std::lock_guard lock(mu_);
    return lastSecret_;
  }

  ports::TargetOutcome plan(const ports::TargetAccess& t,
                            const domain::CertificateVersion& next) override {
    std::lock_guard lock(mu_);
    if (auto failed = failure(t, "plan")) return *failed;
    auto out = ports::TargetOutcome::success();
    const auto it = served_.find(t.name);
    out.changes.push_back(
        {t.name, it == served_.end()
                     ? "create"
                     : (it->second == next.serial_number ? "unchanged" : "replace")});
    return out;
  }
  // Called at the start of every deliver (outside the module's lock): a slow target, or
  // something that happens elsewhere while the run is under way. Set before the module is used.
  std::function<void(const std::string& target)> whileDelivering;

  ports::TargetOutcome deliver(const ports::TargetAccess& t,
                               const domain::CertificateVersion& next) override {
    if (whileDelivering) whileDelivering(t.name);
    std::lock_guard lock(mu_);
    if (auto failed = failure(t, "deliver")) return *failed;
    lastKey_ = next.private_key_pem;
    lastSecret_ = t.secret;
    if (t.step) t.step("wrote serial " + next.serial_number);
    const auto it = served_.find(t.name);
    if (it != served_.end() && it->second == next.serial_number) {
      return ports::TargetOutcome::unchanged();
    }
    kept_[t.name] = it == served_.end() ? std::string() : it->second;
    hadBefore_[t.name] = it != served_.end();
    served_[t.name] = next.serial_number;
    return ports::TargetOutcome::success();
  }
  ports::TargetOutcome restore(const ports::TargetAccess& t,
                               const domain::CertificateVersion* previous) override {
    std::lock_guard lock(mu_);
    if (auto failed = failure(t, "restore")) return *failed;
    if (needsPrevious_) {
      if (previous == nullptr) {
        return ports::TargetOutcome::failure(domain::target_error::nothing_to_restore,
                                             "no version");
      }
      served_[t.name] = previous->serial_number;
      return ports::TargetOutcome::success();
    }
    if (!hadBefore_[t.name]) {
      return ports::TargetOutcome::failure(domain::target_error::nothing_to_restore,
                                           "nothing was replaced here");
    }
    served_[t.name] = kept_[t.name];
    return ports::TargetOutcome::success();
  }
  ports::TargetOutcome check(const ports::TargetAccess& t) override {
    std::lock_guard lock(mu_);
    if (auto failed = failure(t, "check")) return *failed;
    return ports::TargetOutcome::success();
  }
  // HTTP-01 files: kept per target and token (a failing target writes nothing).
  ports::TargetOutcome putChallengeFile(const ports::TargetAccess& t, const std::string& token,
                                        const std::string& content) override {
    std::lock_guard lock(mu_);
    if (auto failed = failure(t, "put_challenge")) return *failed;
    challengeFiles_[t.name + "/" + token] = content;
    return ports::TargetOutcome::success();
  }
  ports::TargetOutcome removeChallengeFile(const ports::TargetAccess& t,
                                           const std::string& token) override {
    std::lock_guard lock(mu_);
    if (auto failed = failure(t, "remove_challenge")) return *failed;
    challengeFiles_.erase(t.name + "/" + token);
    return ports::TargetOutcome::success();
  }
  // The HTTP-01 file `token` on `target`, or "" when there is none.
  std::string challengeFile(const std::string& target, const std::string& token) const {
    std::lock_guard lock(mu_);
    const auto it = challengeFiles_.find(target + "/" + token);
    return it == challengeFiles_.end() ? std::string() : it->second;
  }
  std::size_t challengeFiles() const {
    std::lock_guard lock(mu_);
    return challengeFiles_.size();
  }
  bool supportsRollback() const override { return rollback_; }
  bool rollbackNeedsPreviousVersion() const override { return needsPrevious_; }

 private:
  std::optional<ports::TargetOutcome> failure(const ports::TargetAccess& t, const char* what) {
    ++calls_[what];
    const auto it = failing_.find(t.name);
    if (it == failing_.end() || it->second.second == 0) return std::nullopt;
    if (it->second.second > 0) --it->second.second;
    return ports::TargetOutcome::failure(
        it->second.first,
        std::string(what) + " failed on " + t.name + " (" + it->second.first + ")");
  }

  bool rollback_;
  bool needsPrevious_;
  mutable std::mutex mu_;
  std::map<std::string, std::pair<std::string, int>> failing_;
  std::map<std::string, std::string> served_, kept_, challengeFiles_;
  std::map<std::string, bool> hadBefore_;
  std::map<std::string, int> calls_;
  std::string lastKey_, lastSecret_;
};

// The modules of a test, by name.
class FakeDistributionModules : public ports::DistributionModules {
 public:
  void add(std::string name, ports::DistributionModule& module) {
    modules_[std::move(name)] = &module;
  }
  ports::DistributionModule* find(std::string_view name) override {
    const auto it = modules_.find(std::string(name));
    return it == modules_.end() ? nullptr : it->second;
  }

 private:
  std::map<std::string, ports::DistributionModule*> modules_;
};

}  // namespace certsteward::testing
