// ObjectIdGenerator: ids in MongoDB ObjectId layout from the clock, 5 random bytes drawn once
// per generator (OpenSSL RAND_bytes) and an atomic counter. Thread-safe.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>

#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/id_generator.hpp>

namespace certsteward::adapters::crypto {

class ObjectIdGenerator : public ports::IdGenerator {
 public:
  explicit ObjectIdGenerator(const ports::Clock& clock);
  domain::Id next() override;

 private:
  const ports::Clock& clock_;
  std::array<std::uint8_t, 5> random_{};
  std::atomic<std::uint32_t> counter_{0};
};

}  // namespace certsteward::adapters::crypto
