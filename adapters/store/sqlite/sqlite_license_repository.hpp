// SqliteLicenseRepository: the one licence document. Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/license_repository.hpp>

namespace certsteward::adapters::sqlite {

class SqliteLicenseRepository : public ports::LicenseRepository {
 public:
  explicit SqliteLicenseRepository(Database& db) : db_(db) {}
  domain::Result<std::optional<domain::License>> get() const override;
  domain::Status put(const domain::License& license) override;

 private:
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
