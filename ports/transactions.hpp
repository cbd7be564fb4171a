// Transactions: several repository writes committed together or not at all — a mutation, the
// jobs it queues and its audit entry (docs/architecture.md, "Atomic mutations").
#pragma once

#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

class Transactions {
 public:
  virtual ~Transactions() = default;

  /**
   * Runs `body` as one transaction of the store: every repository call the calling thread makes
   * inside `body` (reads included) belongs to it, and its writes commit together or not at all.
   * When `body` returns an error, everything it wrote is rolled back and that error is returned.
   *
   * `guards` name what the transaction must be serialised against ("license",
   * "project:<id>"): two transactions that name the same guard never both commit on a state the
   * other changed, so a check and the write that depends on it are atomic even where the store
   * isolates by snapshot (MongoDB). The SQLite and memory stores serialise every transaction.
   *
   * The store may run `body` again after a transient write conflict (at most a few times), so
   * it must have no effect outside the store. A call from inside `body` joins the outer
   * transaction. @return body's result; unavailable when the store cannot commit. Thread-safe.
   */
  virtual domain::Status run(const std::vector<std::string>& guards,
                             const std::function<domain::Status()>& body) = 0;

  domain::Status run(const std::function<domain::Status()>& body) { return run({}, body); }
};

}  // namespace certsteward::ports
