// Pagination defaults and clamping.
#include <certsteward/domain/pagination.hpp>

#include <limits>

namespace certsteward::domain {

Result<PageRequest> makePageRequest(std::optional<std::int64_t> page,
                                    std::optional<std::int64_t> pageSize) {
  PageRequest request;
  if (page) {
    if (*page < 1) return makeError(ErrorCode::invalid_argument, "page must be 1 or more");
    request.page = *page;
  }
  if (pageSize) {
    if (*pageSize < 1) {
      return makeError(ErrorCode::invalid_argument, "page_size must be 1 or more");
    }
    request.page_size = *pageSize > kMaxPageSize ? kMaxPageSize : *pageSize;
  }
  if (request.page > std::numeric_limits<std::int64_t>::max() / request.page_size) {
    return makeError(ErrorCode::invalid_argument, "page is too large");
  }
  return request;
}

}  // namespace certsteward::domain
