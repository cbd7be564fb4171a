// Transactions with the project and licence guards.
#include <certsteward/services/unit_of_work.hpp>

namespace certsteward::services {

std::string projectGuard(const domain::Id& projectId) {
  return "project:" + projectId;
}

std::string userGuard(const domain::Id& userId) {
  return "user:" + userId;
}

domain::Status UnitOfWork::run(const std::function<domain::Status()>& body,
                               const std::vector<std::string>& guards) {
  return transactions_.run(guards, body);
}

domain::Status UnitOfWork::inProject(const domain::Id& projectId,
                                     const std::function<domain::Status()>& body,
                                     std::vector<std::string> moreGuards) {
  moreGuards.push_back(projectGuard(projectId));
  return transactions_.run(moreGuards, [&]() -> domain::Status {
    if (auto project = projects_.get(projectId); !project) return project.error();
    return body();
  });
}

}  // namespace certsteward::services
