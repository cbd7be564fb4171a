// MemoryChallengeTokens: HTTP-01 key authorizations by token; expired ones are dropped on put.
// Thread-safe.
#pragma once

#include <map>
#include <mutex>

#include <certsteward/ports/challenge_tokens.hpp>

namespace certsteward::adapters::memory {

class MemoryChallengeTokens : public ports::ChallengeTokens {
 public:
  domain::Status put(const std::string& token, const std::string& keyAuthorization,
                     domain::Timestamp expiresAt, domain::Timestamp now) override {
    std::lock_guard lock(mu_);
    std::erase_if(items_, [&](const auto& kv) { return kv.second.expires_at <= now; });
    items_.insert_or_assign(token, Entry{keyAuthorization, expiresAt});
    return {};
  }

  domain::Result<std::optional<std::string>> find(const std::string& token,
                                                  domain::Timestamp now) const override {
    std::lock_guard lock(mu_);
    const auto it = items_.find(token);
    if (it == items_.end() || it->second.expires_at <= now) return std::optional<std::string>{};
    return std::optional<std::string>{it->second.key_authorization};
  }

  domain::Status remove(const std::string& token) override {
    std::lock_guard lock(mu_);
    items_.erase(token);
    return {};
  }

 private:
  struct Entry {
    std::string key_authorization;
    domain::Timestamp expires_at;
  };
  mutable std::mutex mu_;
  std::map<std::string, Entry> items_;
};

}  // namespace certsteward::adapters::memory
