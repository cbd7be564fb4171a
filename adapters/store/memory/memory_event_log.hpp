// MemoryEventLog: events per project. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <vector>

#include <certsteward/ports/event_log.hpp>

namespace certsteward::adapters::memory {

class MemoryEventLog : public ports::EventLog {
 public:
  domain::Status record(const domain::Event& event) override;
  domain::Result<domain::Page<domain::Event>> list(const domain::Id& projectId,
                                                   const domain::PageRequest& page) const override;
  domain::Result<domain::Page<domain::Event>> listInOrder(
      const domain::Id& projectId, const domain::PageRequest& page) const override;

 private:
  mutable std::mutex mu_;
  std::map<domain::Id, std::vector<domain::Event>> events_;
};

}  // namespace certsteward::adapters::memory
