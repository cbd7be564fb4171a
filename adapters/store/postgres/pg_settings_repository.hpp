// PgSettingsRepository: setting documents by key. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/settings_repository.hpp>

namespace certsteward::adapters::postgres {

class PgSettingsRepository : public ports::SettingsRepository {
 public:
  explicit PgSettingsRepository(PgDatabase& db) : db_(db) {}
  domain::Result<std::optional<domain::Setting>> get(const std::string& key) const override;
  domain::Status put(const domain::Setting& setting) override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
