// LicenseRepository: the one licence in force (the latest activated).
#pragma once

#include <optional>

#include <certsteward/domain/license.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::ports {

class LicenseRepository {
 public:
  virtual ~LicenseRepository() = default;

  /** @return the stored licence, nullopt when none was ever activated. Thread-safe. */
  virtual domain::Result<std::optional<domain::License>> get() const = 0;

  /** Replaces the stored licence. Thread-safe. */
  virtual domain::Status put(const domain::License& license) = 0;
};

}  // namespace certsteward::ports
