// MongoLicenseRepository: the one licence document. Thread-safe: each call borrows a pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/license_repository.hpp>

namespace certsteward::adapters::mongo {

class MongoLicenseRepository : public ports::LicenseRepository {
 public:
  explicit MongoLicenseRepository(MongoDatabase& db) : db_(db) {}
  domain::Result<std::optional<domain::License>> get() const override;
  domain::Status put(const domain::License& license) override;

 private:
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
