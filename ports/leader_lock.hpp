// LeaderLock: a named lease held by at most one instance (the scheduler's leader election).
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::ports {

class LeaderLock {
 public:
  virtual ~LeaderLock() = default;

  /**
   * Takes the lease `name` for `holder` until now + ttl when it is free, expired, or already
   * held by `holder` (then it is extended — the heartbeat).
   * @return true when `holder` holds it afterwards. Thread-safe and atomic across instances.
   */
  virtual domain::Result<bool> tryAcquire(const std::string& name, const std::string& holder,
                                          domain::Timestamp now, domain::Duration ttl) = 0;

  /** Gives the lease up if `holder` holds it; otherwise does nothing. */
  virtual domain::Status release(const std::string& name, const std::string& holder) = 0;

  /** @return the holder at `now`, nullopt when free or expired. */
  virtual domain::Result<std::optional<std::string>> holder(const std::string& name,
                                                            domain::Timestamp now) const = 0;
};

}  // namespace certsteward::ports
