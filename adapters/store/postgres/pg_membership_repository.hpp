// PgMembershipRepository: one row per (project, user). Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/membership_repository.hpp>

namespace certsteward::adapters::postgres {

class PgMembershipRepository : public ports::MembershipRepository {
 public:
  explicit PgMembershipRepository(PgDatabase& db) : db_(db) {}
  domain::Status put(const domain::Membership& membership) override;
  domain::Result<domain::Membership> get(const domain::Id& projectId,
                                         const domain::Id& userId) const override;
  domain::Status remove(const domain::Id& projectId, const domain::Id& userId) override;
  domain::Result<domain::Page<domain::Membership>> listForProject(
      const domain::Id& projectId, const domain::PageRequest& page) const override;
  domain::Result<std::vector<domain::Membership>> listForUser(
      const domain::Id& userId) const override;

 private:
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
