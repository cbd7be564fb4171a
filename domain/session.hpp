// Records that hold across instances: refresh tokens (single use, in families), idempotency
// records of mutations, and settings.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::domain {

// One issued refresh token. A login starts a family; each refresh consumes the presented token
// and issues the next one in the same family. Presenting a consumed token revokes the family.
struct RefreshToken {
  std::string token_id;  // the JWT's jti
  Id family_id;
  Id user_id;
  Timestamp issued_at{};
  Timestamp expires_at{};
  bool consumed = false;
  bool revoked = false;
};

// One live session of a user, as its refresh-token family shows it: when its oldest token still
// kept was issued (the login, or a week ago at most), when it was last renewed, and when its
// newest token expires.
struct SessionSummary {
  Id family_id;
  Timestamp started_at{};
  Timestamp last_renewed_at{};
  Timestamp expires_at{};
};

// The live sessions among `tokens` (one user's) at `now`: the families that still have a token
// neither consumed, revoked nor expired, oldest first. What every store's sessionsOf answers.
std::vector<SessionSummary> liveSessions(const std::vector<RefreshToken>& tokens, Timestamp now);

// The stored outcome of a mutation sent with an Idempotency-Key, replayed for 24 hours.
struct IdempotencyRecord {
  std::string key;                  // scoped by the caller: "<user_id>:<method> <path>:<key>"
  std::string request_fingerprint;  // hash of the request body
  int status_code = 0;
  std::string content_type;
  std::string body;
  Timestamp created_at{};
  Timestamp expires_at{};
};

inline constexpr Duration kIdempotencyWindow = std::chrono::hours{24};

struct Setting {
  std::string key;    // e.g. "ldap"
  std::string value;  // a JSON document; secrets inside it are sealed by the service
  Timestamp updated_at{};
};

}  // namespace certsteward::domain
