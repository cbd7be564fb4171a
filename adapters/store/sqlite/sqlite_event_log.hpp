// SqliteEventLog: project events. Thread-safe.
#pragma once

#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/event_log.hpp>

namespace certsteward::adapters::sqlite {

class SqliteEventLog : public ports::EventLog {
 public:
  explicit SqliteEventLog(Database& db) : db_(db) {}

  domain::Status record(const domain::Event& event) override;
  domain::Result<domain::Page<domain::Event>> list(const domain::Id& projectId,
                                                   const domain::PageRequest& page) const override;
  domain::Result<domain::Page<domain::Event>> listInOrder(
      const domain::Id& projectId, const domain::PageRequest& page) const override;

 private:
  domain::Result<domain::Page<domain::Event>> read(const domain::Id& projectId,
                                                   const domain::PageRequest& page,
                                                   bool inOrder) const;
  Database& db_;
};

}  // namespace certsteward::adapters::sqlite
