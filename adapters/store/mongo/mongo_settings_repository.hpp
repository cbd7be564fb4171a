// MongoSettingsRepository: setting documents by key. Thread-safe: each call borrows a pooled
// client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/settings_repository.hpp>

namespace certsteward::adapters::mongo {

class MongoSettingsRepository : public ports::SettingsRepository {
 public:
  explicit MongoSettingsRepository(MongoDatabase& db) : db_(db) {}
  domain::Result<std::optional<domain::Setting>> get(const std::string& key) const override;
  domain::Status put(const domain::Setting& setting) override;

 private:
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
