// RefreshTokenStore: single-use refresh tokens in families, shared by all instances.
#pragma once

#include <string>
#include <vector>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/session.hpp>

namespace certsteward::ports {

class RefreshTokenStore {
 public:
  virtual ~RefreshTokenStore() = default;

  /** Records a newly issued token. @return conflict when its token_id exists. Thread-safe. */
  virtual domain::Status issue(const domain::RefreshToken& token) = 0;

  /**
   * Atomically marks the token consumed and returns it as it was.
   * @return unauthenticated with reason TOKEN_REUSE when it was already consumed (and the
   * whole family is revoked in the same step); unauthenticated with reason TOKEN_INVALID when
   * it is unknown, revoked or expired at `now`. Thread-safe: of two concurrent consumers of
   * one token, exactly one succeeds.
   */
  virtual domain::Result<domain::RefreshToken> consume(const std::string& tokenId,
                                                       domain::Timestamp now) = 0;

  /** Revokes every token of a family (logout). Unknown families succeed. */
  virtual domain::Status revokeFamily(const domain::Id& familyId) = 0;

  /** Revokes every token of a user (password change, disable). */
  virtual domain::Status revokeUser(const domain::Id& userId) = 0;
  /**
   * The user's live sessions at `now`: every family that still has a token neither consumed,
   * revoked nor expired, oldest first (by started_at). Thread-safe.
   */
  virtual domain::Result<std::vector<domain::SessionSummary>> sessionsOf(const domain::Id& userId,
                                                                         domain::Timestamp now) = 0;
};

}  // namespace certsteward::ports
