// Pagination defaults, the silent clamp, and refusals.
#include <doctest/doctest.h>

#include <limits>

#include <certsteward/domain/pagination.hpp>

using namespace certsteward::domain;

TEST_CASE("pagination: defaults, clamp to 100, and invalid values") {
  const struct {
    std::optional<std::int64_t> page;
    std::optional<std::int64_t> size;
    bool ok;
    std::int64_t expectPage;
    std::int64_t expectSize;
    std::int64_t expectOffset;
  } rows[] = {
      {std::nullopt, std::nullopt, true, 1, 20, 0},
      {3, std::nullopt, true, 3, 20, 40},
      {1, 100, true, 1, 100, 0},
      {1, 101, true, 1, 100, 0},
      {2, 5000, true, 2, 100, 100},
      {1, 1, true, 1, 1, 0},
      {0, std::nullopt, false, 0, 0, 0},
      {-1, std::nullopt, false, 0, 0, 0},
      {1, 0, false, 0, 0, 0},
      {1, -20, false, 0, 0, 0},
      {std::numeric_limits<std::int64_t>::max(), 100, false, 0, 0, 0},
  };
  for (const auto& r : rows) {
    CAPTURE(r.page.value_or(-999));
    CAPTURE(r.size.value_or(-999));
    const auto p = makePageRequest(r.page, r.size);
    REQUIRE(p.ok() == r.ok);
    if (r.ok) {
      CHECK(p->page == r.expectPage);
      CHECK(p->page_size == r.expectSize);
      CHECK(p->offset() == r.expectOffset);
    } else {
      CHECK(p.error().code == ErrorCode::invalid_argument);
    }
  }
}
