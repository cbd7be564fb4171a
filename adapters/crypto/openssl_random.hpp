// OpenSslRandom: RAND_bytes. Never fails: without randomness the process cannot run safely, so an
// exhausted source ends it (a message on stderr, then std::abort). Thread-safe.
#pragma once

#include <certsteward/ports/random.hpp>

namespace certsteward::adapters::crypto {

class OpenSslRandom : public ports::Random {
 public:
  // Where the bytes come from, as RAND_bytes: 1 when `out` holds `n` fresh bytes. A test passes
  // one that fails to see the process end.
  using Source = int (*)(unsigned char* out, int n);

  OpenSslRandom();
  explicit OpenSslRandom(Source source) : source_(source) {}

  std::string bytes(std::size_t n) override;

 private:
  Source source_;
};

}  // namespace certsteward::adapters::crypto
