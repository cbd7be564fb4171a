// OpenSslRandom: RAND_bytes. Thread-safe.
#pragma once

#include "ports/random.hpp"

namespace certsteward::adapters::crypto {

class OpenSslRandom : public ports::Random {
 public:
  std::string bytes(std::size_t n) override;
};

}  // namespace certsteward::adapters::crypto
