// UnitOfWork: the transaction every mutation runs in — the change, the jobs it queues and its
// audit entry commit together or not at all (ports::Transactions) — with the guards the rules
// need: a write under a project runs where the project exists and cannot be deleted meanwhile.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <certsteward/domain/id.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/ports/project_repository.hpp>
#include <certsteward/ports/transactions.hpp>

namespace certsteward::services {

// The guard of everything written under one project (and of the project's deletion).
std::string projectGuard(const domain::Id& projectId);
// The guard of one user's record: every read-modify-write of it takes it.
std::string userGuard(const domain::Id& userId);
// The guard of the licence count: every certificate create takes it.
inline constexpr const char* kLicenseGuard = "license";

class UnitOfWork {
 public:
  UnitOfWork(ports::Transactions& transactions, const ports::ProjectRepository& projects)
      : transactions_(transactions), projects_(projects) {}

  // Runs `body` in one transaction.
  domain::Status run(const std::function<domain::Status()>& body,
                     const std::vector<std::string>& guards = {});

  // Runs `body` in one transaction in which project `projectId` exists (not_found otherwise,
  // and nothing is written) and cannot be deleted by a concurrent transaction.
  domain::Status inProject(const domain::Id& projectId, const std::function<domain::Status()>& body,
                           std::vector<std::string> moreGuards = {});

 private:
  ports::Transactions& transactions_;
  const ports::ProjectRepository& projects_;
};

}  // namespace certsteward::services
