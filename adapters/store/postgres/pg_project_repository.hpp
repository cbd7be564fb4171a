// PgProjectRepository: projects, unique by name. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/project_repository.hpp>

namespace certsteward::adapters::postgres {

class PgProjectRepository : public ports::ProjectRepository {
 public:
  explicit PgProjectRepository(PgDatabase& db) : db_(db) {}
  domain::Status create(const domain::Project& project) override;
  domain::Result<domain::Project> get(const domain::Id& id) const override;
  domain::Result<domain::Page<domain::Project>> list(
      const domain::PageRequest& page,
      const std::optional<std::vector<domain::Id>>& only) const override;
  domain::Status update(const domain::Project& project) override;
  domain::Status remove(const domain::Id& id) override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
