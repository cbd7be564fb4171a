// SqliteSettingsRepository: setting documents by key. Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/settings_repository.hpp>

namespace certsteward::adapters::sqlite {

class SqliteSettingsRepository : public ports::SettingsRepository {
 public:
  explicit SqliteSettingsRepository(Database& db) : db_(db) {}
  domain::Result<std::optional<domain::Setting>> get(const std::string& key) const override;
  domain::Status put(const domain::Setting& setting) override;

 private:
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
