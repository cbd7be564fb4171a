// SettingsRepository: org-wide settings documents by key (e.g. "ldap").
#pragma once

#include <optional>
#include <string>

#include <certsteward/domain/result.hpp>
#include <certsteward/domain/session.hpp>

namespace certsteward::ports {

class SettingsRepository {
 public:
  virtual ~SettingsRepository() = default;

  /** @return the setting, nullopt when never written. Thread-safe. */
  virtual domain::Result<std::optional<domain::Setting>> get(const std::string& key) const = 0;

  /** Adds or replaces the setting. Thread-safe. */
  virtual domain::Status put(const domain::Setting& setting) = 0;
};

}  // namespace certsteward::ports
