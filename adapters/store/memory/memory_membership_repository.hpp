// MemoryMembershipRepository: (project, user) -> role. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <utility>

#include <certsteward/ports/membership_repository.hpp>

namespace certsteward::adapters::memory {

class MemoryMembershipRepository : public ports::MembershipRepository {
 public:
  domain::Status put(const domain::Membership& membership) override;
  domain::Result<domain::Membership> get(const domain::Id& projectId,
                                         const domain::Id& userId) const override;
  domain::Status remove(const domain::Id& projectId, const domain::Id& userId) override;
  domain::Result<domain::Page<domain::Membership>> listForProject(
      const domain::Id& projectId, const domain::PageRequest& page) const override;
  domain::Result<std::vector<domain::Membership>> listForUser(
      const domain::Id& userId) const override;

 private:
  void restore(const domain::Membership& old);  // undo of a write inside a transaction
  mutable std::mutex mu_;
  std::map<std::pair<domain::Id, domain::Id>, domain::Membership> items_;
};

}  // namespace certsteward::adapters::memory
