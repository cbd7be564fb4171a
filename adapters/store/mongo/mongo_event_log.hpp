// MongoEventLog: project events in the `events` collection. Thread-safe: each call borrows a pooled
// client.
#pragma once

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/event_log.hpp>

namespace certsteward::adapters::mongo {

class MongoEventLog : public ports::EventLog {
 public:
  explicit MongoEventLog(MongoDatabase& db) : db_(db) {}
  domain::Status record(const domain::Event& event) override;
  domain::Result<domain::Page<domain::Event>> list(const domain::Id& projectId,
                                                   const domain::PageRequest& page) const override;
  domain::Result<domain::Page<domain::Event>> listInOrder(
      const domain::Id& projectId, const domain::PageRequest& page) const override;

 private:
  domain::Result<domain::Page<domain::Event>> read(const domain::Id& projectId,
                                                   const domain::PageRequest& page,
                                                   bool inOrder) const;
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
