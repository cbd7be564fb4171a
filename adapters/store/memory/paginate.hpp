// Cuts one page out of an already filtered and ordered vector.
#pragma once

#include <algorithm>
#include <vector>

#include <certsteward/domain/pagination.hpp>

namespace certsteward::adapters::memory {

template <class T>
domain::Page<T> paginate(std::vector<T> all, const domain::PageRequest& request) {
  domain::Page<T> page;
  page.total = static_cast<std::int64_t>(all.size());
  page.page = request.page;
  page.page_size = request.page_size;
  const auto offset = request.offset();
  if (offset < page.total) {
    const auto end = std::min<std::int64_t>(page.total, offset + request.page_size);
    page.items.assign(std::make_move_iterator(all.begin() + offset),
                      std::make_move_iterator(all.begin() + end));
  }
  return page;
}

}  // namespace certsteward::adapters::memory
