// Contract of Random on every adapter (and on an embedding team's own): bytes(n) answers exactly n
// bytes, any byte value among them, and successive answers differ; it never fails.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_RANDOM_HARNESSES as the list of harnesses to run it against. A harness is
// default-constructible and provides:
//   ports::Random& random();
#pragma once

#ifndef CERTSTEWARD_RANDOM_HARNESSES
#error "define CERTSTEWARD_RANDOM_HARNESSES (the Random harnesses) before including the suite"
#endif

#include <doctest/doctest.h>

#include <cstddef>
#include <set>
#include <string>

#include <certsteward/ports/random.hpp>

TEST_CASE_TEMPLATE("random: bytes(n) answers exactly n bytes, of any value", H,
                   CERTSTEWARD_RANDOM_HARNESSES) {
  H h;
  for (const std::size_t n : {std::size_t{0}, std::size_t{1}, std::size_t{16}, std::size_t{32},
                              std::size_t{1000}, std::size_t{70000}}) {
    CAPTURE(n);
    CHECK(h.random().bytes(n).size() == n);
  }
  // Bytes, not text: over 64 KiB every value turns up (a generator limited to a charset would
  // miss most).
  const std::string many = h.random().bytes(65536);
  const std::set<unsigned char> values(many.begin(), many.end());
  CHECK(values.size() == 256);
}

TEST_CASE_TEMPLATE("random: successive answers differ", H, CERTSTEWARD_RANDOM_HARNESSES) {
  H h;
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i)
    seen.insert(h.random().bytes(16));
  CHECK(seen.size() == 100);
}
