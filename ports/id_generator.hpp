// IdGenerator: new entity ids (24 hex characters, ObjectId layout; see domain/id.hpp).
#pragma once

#include <memory>

#include <certsteward/domain/id.hpp>

namespace certsteward::ports {

class IdGenerator {
 public:
  virtual ~IdGenerator() = default;

  /**
   * @return a new id, unique across processes with overwhelming probability, whose first 4
   * bytes are the creation second, so ids sort by creation time. Never fails. Thread-safe.
   */
  virtual domain::Id next() = 0;
};

using IdGeneratorPtr = std::unique_ptr<IdGenerator>;

}  // namespace certsteward::ports
