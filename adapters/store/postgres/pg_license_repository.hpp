// PgLicenseRepository: the one licence document. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/license_repository.hpp>

namespace certsteward::adapters::postgres {

class PgLicenseRepository : public ports::LicenseRepository {
 public:
  explicit PgLicenseRepository(PgDatabase& db) : db_(db) {}
  domain::Result<std::optional<domain::License>> get() const override;
  domain::Status put(const domain::License& license) override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
