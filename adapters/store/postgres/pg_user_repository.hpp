// PgUserRepository: users, unique by username. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/user_repository.hpp>

namespace certsteward::adapters::postgres {

class PgUserRepository : public ports::UserRepository {
 public:
  explicit PgUserRepository(PgDatabase& db) : db_(db) {}
  domain::Status create(const domain::User& user) override;
  domain::Result<domain::User> get(const domain::Id& id) const override;
  domain::Result<domain::User> getByUsername(const std::string& username) const override;
  domain::Result<domain::Page<domain::User>> list(const domain::PageRequest& page) const override;
  domain::Status update(const domain::User& user) override;
  domain::Status remove(const domain::Id& id) override;
  domain::Result<std::int64_t> count() const override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
