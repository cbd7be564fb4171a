// StoreFixture<Factory>: a fresh store, a fake clock and predictable ids for one test case of a
// contract suite. A Factory provides:
//   static constexpr const char* kName;                        // "memory", "sqlite", ...
//   std::unique_ptr<ports::Store> make();                       // a fresh, empty store
//   void cleanup(ports::Store&);                                // after the test case
//   static void tamper(ports::Store&, const domain::AuditEntry&);  // rewrite a stored entry in
//                                                               // place, as someone with database
//                                                               // access could (audit suite)
#pragma once

#include <memory>

#include <certsteward/domain/pagination.hpp>
#include <certsteward/ports/store.hpp>
#include <certsteward/testing/doctest_string_view.hpp>
#include <certsteward/testing/fake_clock.hpp>
#include <certsteward/testing/sequential_ids.hpp>

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
