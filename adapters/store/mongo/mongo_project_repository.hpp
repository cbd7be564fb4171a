// MongoProjectRepository: projects, unique by name. Thread-safe: each call borrows a pooled client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/project_repository.hpp>

namespace certsteward::adapters::mongo {

class MongoProjectRepository : public ports::ProjectRepository {
 public:
  explicit MongoProjectRepository(MongoDatabase& db) : db_(db) {}
  domain::Status create(const domain::Project& project) override;
  domain::Result<domain::Project> get(const domain::Id& id) const override;
  domain::Result<domain::Page<domain::Project>> list(
      const domain::PageRequest& page,
      const std::optional<std::vector<domain::Id>>& only) const override;
  domain::Status update(const domain::Project& project) override;
  domain::Status remove(const domain::Id& id) override;

 private:
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
