// MemoryProjectRepository: projects with unique names. Thread-safe.
#pragma once

#include <map>
#include <mutex>

#include <certsteward/ports/project_repository.hpp>

namespace certsteward::adapters::memory {

class MemoryProjectRepository : public ports::ProjectRepository {
 public:
  domain::Status create(const domain::Project& project) override;
  domain::Result<domain::Project> get(const domain::Id& id) const override;
  domain::Result<domain::Page<domain::Project>> list(
      const domain::PageRequest& page,
      const std::optional<std::vector<domain::Id>>& only) const override;
  domain::Status update(const domain::Project& project) override;
  domain::Status remove(const domain::Id& id) override;

 private:
  void restore(const domain::Project& old);  // undo of a write inside a transaction
  bool nameTaken(const std::string& name, const domain::Id& except) const;

  mutable std::mutex mu_;
  std::map<domain::Id, domain::Project> items_;
};

}  // namespace certsteward::adapters::memory
