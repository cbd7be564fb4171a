// IdempotencyStore: stored responses of mutations sent with an Idempotency-Key (24 h).
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/session.hpp>

namespace certsteward::ports {

class IdempotencyStore {
 public:
  virtual ~IdempotencyStore() = default;

  /** @return the live record for `key` at `now`; nullopt when none or expired. Thread-safe. */
  virtual domain::Result<std::optional<domain::IdempotencyRecord>> find(
      const std::string& key, domain::Timestamp now) const = 0;

  /**
   * Stores `record` unless a live record holds its key at `now`.
   * @return conflict when one does (a concurrent request won). Thread-safe.
   */
  virtual domain::Status save(const domain::IdempotencyRecord& record, domain::Timestamp now) = 0;
};

}  // namespace certsteward::ports
