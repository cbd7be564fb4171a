// PgEventLog: project events; recorders of one project queue on a guard, so the order they were
// recorded in is the order they commit in. Thread-safe.
#pragma once

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/ports/event_log.hpp>

namespace certsteward::adapters::postgres {

class PgEventLog : public ports::EventLog {
 public:
  explicit PgEventLog(PgDatabase& db) : db_(db) {}

  domain::Status record(const domain::Event& event) override;
  domain::Result<domain::Page<domain::Event>> list(const domain::Id& projectId,
                                                   const domain::PageRequest& page) const override;
  domain::Result<domain::Page<domain::Event>> listInOrder(
      const domain::Id& projectId, const domain::PageRequest& page) const override;

 private:
  domain::Result<domain::Page<domain::Event>> read(const domain::Id& projectId,
                                                   const domain::PageRequest& page,
                                                   bool inOrder) const;
  PgDatabase& db_;
};

}  // namespace certsteward::adapters::postgres
