// Projects, users and memberships in SQLite. Thread-safe.
#pragma once

#include "adapters/store/sqlite/sqlite_database.hpp"
#include "ports/membership_repository.hpp"
#include "ports/project_repository.hpp"
#include "ports/user_repository.hpp"

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

class SqliteUserRepository : public ports::UserRepository {
 public:
  explicit SqliteUserRepository(Database& db) : db_(db) {}
  domain::Status create(const domain::User& user) override;
  domain::Result<domain::User> get(const domain::Id& id) const override;
  domain::Result<domain::User> getByUsername(const std::string& username) const override;
  domain::Result<domain::Page<domain::User>> list(const domain::PageRequest& page) const override;
  domain::Status update(const domain::User& user) override;
  domain::Status remove(const domain::Id& id) override;
  domain::Result<std::int64_t> count() const override;

 private:
  Database& db_;
};

class SqliteMembershipRepository : public ports::MembershipRepository {
 public:
  explicit SqliteMembershipRepository(Database& db) : db_(db) {}
  domain::Status put(const domain::Membership& membership) override;
  domain::Result<domain::Membership> get(const domain::Id& projectId,
                                         const domain::Id& userId) const override;
  domain::Status remove(const domain::Id& projectId, const domain::Id& userId) override;
  domain::Result<domain::Page<domain::Membership>> listForProject(
      const domain::Id& projectId, const domain::PageRequest& page) const override;
  domain::Result<std::vector<domain::Membership>> listForUser(
      const domain::Id& userId) const override;

 private:
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
