// StoreFixture<Factory>: a fresh store, a fake clock and predictable ids for one test case.
#pragma once

#include <memory>

#include "domain/pagination.hpp"
#include "ports/store.hpp"
#include "testing/fake_clock.hpp"
#include "testing/sequential_ids.hpp"

namespace certsteward::testing {

template <class Factory>
struct StoreFixture {
  Factory factory;
  FakeClock clock;
  SequentialIds ids{clock};
  std::unique_ptr<ports::Store> store = factory.make();

  ~StoreFixture() { factory.cleanup(*store); }

  domain::Timestamp now() const { return clock.now(); }
  static domain::PageRequest page(std::int64_t n = 1, std::int64_t size = 20) {
    return *domain::makePageRequest(n, size);
  }
};

}  // namespace certsteward::testing
