// SqliteProjectRepository: projects, unique by name. Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/project_repository.hpp>

namespace certsteward::adapters::sqlite {

class SqliteProjectRepository : public ports::ProjectRepository {
 public:
  explicit SqliteProjectRepository(Database& db) : db_(db) {}
  domain::Status create(const domain::Project& project) override;
  domain::Result<domain::Project> get(const domain::Id& id) const override;
  domain::Result<domain::Page<domain::Project>> list(
      const domain::PageRequest& page,
      const std::optional<std::vector<domain::Id>>& only) const override;
  domain::Status update(const domain::Project& project) override;
  domain::Status remove(const domain::Id& id) override;

 private:
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
