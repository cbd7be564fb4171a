// SshHostKeys with a table of servers: host:port → the key it offers. Any other address answers
// unavailable, as a silent host does; `refuse` makes an address refused by the outbound policy.
// Counts reads, so a test can see that nothing was reached. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <set>
#include <string>

#include <certsteward/ports/ssh_host_keys.hpp>

namespace certsteward::testing {

class FakeSshHostKeys : public ports::SshHostKeys {
 public:
  void offer(const std::string& host, int port, ports::SshHostKey key) {
    std::lock_guard lock(mu_);
    keys_[host + ":" + std::to_string(port)] = std::move(key);
  }
  void refuse(const std::string& host) {
    std::lock_guard lock(mu_);
    refused_.insert(host);
  }
  int reads() const {
    std::lock_guard lock(mu_);
    return reads_;
  }

  domain::Result<ports::SshHostKey> read(const std::string& host, int port,
                                         domain::Duration) override {
    std::lock_guard lock(mu_);
    ++reads_;
    if (refused_.contains(host)) {
      return domain::makeError(domain::ErrorCode::failed_precondition,
                               "the address of " + host + " is not allowed", "OUTBOUND_REFUSED");
    }
    const auto where = host + ":" + std::to_string(port);
    const auto it = keys_.find(where);
    if (it == keys_.end()) {
      return domain::makeError(domain::ErrorCode::unavailable, "could not connect to " + where);
    }
    return it->second;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, ports::SshHostKey> keys_;
  std::set<std::string> refused_;
  int reads_ = 0;
};

}  // namespace certsteward::testing
