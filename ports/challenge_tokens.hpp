// ChallengeTokens: the HTTP-01 answers (RFC 8555 8.3) this service serves itself on
// `acme.http01_listen`, shared by every instance so that whichever one the CA's request reaches
// can answer it. Each token lives until it is removed or its expiry passes.
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::ports {

class ChallengeTokens {
 public:
  virtual ~ChallengeTokens() = default;

  /**
   * Stores (or replaces) the key authorization answered for `token` until `expiresAt`; tokens
   * expired at `now` are dropped on the way. Thread-safe; seen by every instance at once.
   */
  virtual domain::Status put(const std::string& token, const std::string& keyAuthorization,
                             domain::Timestamp expiresAt, domain::Timestamp now) = 0;

  /** @return the key authorization of `token` at `now`; nullopt when none or expired. */
  virtual domain::Result<std::optional<std::string>> find(const std::string& token,
                                                          domain::Timestamp now) const = 0;

  /** Removes `token`; removing an absent token succeeds. */
  virtual domain::Status remove(const std::string& token) = 0;
};

}  // namespace certsteward::ports
