// SequentialIds: predictable ObjectId-layout ids for tests (time prefix from a clock, then a
// counter). Thread-safe.
#pragma once

#include <atomic>

#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/id_generator.hpp>

namespace certsteward::testing {

class SequentialIds : public ports::IdGenerator {
 public:
  explicit SequentialIds(const ports::Clock& clock) : clock_(clock) {}
  domain::Id next() override {
    return domain::makeObjectId(clock_.now(), {1, 2, 3, 4, 5}, counter_.fetch_add(1));
  }

 private:
  const ports::Clock& clock_;
  std::atomic<std::uint32_t> counter_{1};
};

}  // namespace certsteward::testing
