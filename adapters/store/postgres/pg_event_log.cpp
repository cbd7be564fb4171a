// Project events in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_event_log.hpp>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {

domain::Status PgEventLog::record(const domain::Event& event) {
  return guarded([&]() -> domain::Status {
    // `seq` is taken at the INSERT but seen at COMMIT: two recorders of one project could commit
    // out of seq order, and a reader of listInOrder would then find an event appear behind its
    // offset. Under the project's guard each takes its seq after the previous one committed.
    return db_.transact({"certsteward:events:" + event.project_id}, [&]() -> domain::Status {
      db_.exec(q("INSERT INTO events (id, project_id, at, kind, resource_id, message) "
                 "VALUES (?, ?, ?, ?, ?, ?)"),
               {p(event.id), p(event.project_id), p(event.at), p(nameOf(event.kind)),
                p(event.resource_id), freeText(event.message)});
      return {};
    });
  });
}

domain::Result<domain::Page<domain::Event>> PgEventLog::list(
    const domain::Id& projectId, const domain::PageRequest& request) const {
  return read(projectId, request, false);
}

domain::Result<domain::Page<domain::Event>> PgEventLog::listInOrder(
    const domain::Id& projectId, const domain::PageRequest& request) const {
  return read(projectId, request, true);
}

domain::Result<domain::Page<domain::Event>> PgEventLog::read(const domain::Id& projectId,
                                                             const domain::PageRequest& request,
                                                             bool inOrder) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::Event>> {
    domain::Page<domain::Event> page;
    page.page = request.page;
    page.page_size = request.page_size;
    auto done = db_.snapshot([&]() -> domain::Status {
      page.items.clear();  // afresh if the snapshot is run again
      page.total = db_.exec(q("SELECT COUNT(*) FROM events WHERE project_id = ?"), {p(projectId)})
                       .integer(0, 0);
      // seq is the order of recording (events are never deleted).
      auto rows =
          db_.exec(q(inOrder ? "SELECT id, at, kind, resource_id, message FROM events WHERE "
                               "project_id = ? ORDER BY seq LIMIT ? OFFSET ?"
                             : "SELECT id, at, kind, resource_id, message FROM events WHERE "
                               "project_id = ? ORDER BY at DESC, id DESC LIMIT ? OFFSET ?"),
                   {p(projectId), p(request.page_size), p(request.offset())});
      for (int r = 0; r < rows.size(); ++r) {
        domain::Event e;
        e.id = rows.text(r, 0);
        e.project_id = projectId;
        e.at = *timestampAt(rows, r, 1);
        e.kind = domain::parseEventKind(rows.text(r, 2)).value_or(domain::EventKind::job_failed);
        e.resource_id = rows.text(r, 3);
        e.message = rows.text(r, 4);
        page.items.push_back(std::move(e));
      }
      return {};
    });
    if (!done) return done.error();
    return page;
  });
}

}  // namespace certsteward::adapters::postgres
