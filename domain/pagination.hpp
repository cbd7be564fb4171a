// Page-number pagination of list endpoints: page defaults to 1, page_size to 20, and a
// page_size above 100 is clamped silently to 100.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include <certsteward/domain/result.hpp>

namespace certsteward::domain {

inline constexpr std::int64_t kDefaultPageSize = 20;
inline constexpr std::int64_t kMaxPageSize = 100;

struct PageRequest {
  std::int64_t page = 1;
  std::int64_t page_size = kDefaultPageSize;
  std::int64_t skip = 0;  // more items to skip before the page (cursor reads of append-only logs)

  std::int64_t offset() const noexcept { return (page - 1) * page_size + skip; }
};

// Cursor pagination of the append-only logs (audit log, events, job logs): `limit` defaults to
// 50 and is clamped silently to 500.
inline constexpr std::int64_t kDefaultCursorLimit = 50;
inline constexpr std::int64_t kMaxCursorLimit = 500;

// Defaults for missing values, the silent clamp above 100; invalid_argument for page < 1 or
// page_size < 1 (and for pages so far out that the offset would overflow).
Result<PageRequest> makePageRequest(std::optional<std::int64_t> page,
                                    std::optional<std::int64_t> pageSize);

template <class T>
struct Page {
  std::vector<T> items;
  std::int64_t total = 0;
  std::int64_t page = 1;
  std::int64_t page_size = kDefaultPageSize;
};

enum class SortOrder { asc, desc };

}  // namespace certsteward::domain
