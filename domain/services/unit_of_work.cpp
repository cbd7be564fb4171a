// Transactions with the project and licence guards.
#include "domain/services/unit_of_work.hpp"

namespace certsteward::domain {

std::string projectGuard(const Id& projectId) {
  return "project:" + projectId;
}

std::string userGuard(const Id& userId) {
  return "user:" + userId;
}

Status UnitOfWork::run(const std::function<Status()>& body,
                       const std::vector<std::string>& guards) {
  return transactions_.run(guards, body);
}

Status UnitOfWork::inProject(const Id& projectId, const std::function<Status()>& body,
                             std::vector<std::string> moreGuards) {
  moreGuards.push_back(projectGuard(projectId));
  return transactions_.run(moreGuards, [&]() -> Status {
    if (auto project = projects_.get(projectId); !project) return project.error();
    return body();
  });
}

}  // namespace certsteward::domain
