// SqliteMembershipRepository: one row per (project, user). Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/membership_repository.hpp>

namespace certsteward::adapters::sqlite {

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
