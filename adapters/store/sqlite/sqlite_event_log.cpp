// Project events in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_event_log.hpp>

namespace certsteward::adapters::sqlite {

domain::Status SqliteEventLog::record(const domain::Event& event) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare(
         "INSERT INTO events (id, project_id, at, kind, resource_id, message) "
         "VALUES (?, ?, ?, ?, ?, ?)")
        .bind(event.id)
        .bind(event.project_id)
        .bind(event.at)
        .bind(std::string(nameOf(event.kind)))
        .bind(event.resource_id)
        .bind(event.message)
        .run();
    return {};
  });
}

domain::Result<domain::Page<domain::Event>> SqliteEventLog::list(
    const domain::Id& projectId, const domain::PageRequest& request) const {
  return read(projectId, request, false);
}

domain::Result<domain::Page<domain::Event>> SqliteEventLog::listInOrder(
    const domain::Id& projectId, const domain::PageRequest& request) const {
  return read(projectId, request, true);
}

domain::Result<domain::Page<domain::Event>> SqliteEventLog::read(const domain::Id& projectId,
                                                                 const domain::PageRequest& request,
                                                                 bool inOrder) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::Event>> {
    auto c = db_.reader();
    Transaction snapshot(*c, false);
    domain::Page<domain::Event> page;
    page.page = request.page;
    page.page_size = request.page_size;
    auto count = c->prepare("SELECT COUNT(*) FROM events WHERE project_id = ?");
    count.bind(projectId);
    count.step();
    page.total = count.integer(0);
    // rowid is the order of insertion (events are never deleted).
    auto s = c->prepare(inOrder ? "SELECT id, at, kind, resource_id, message FROM events WHERE "
                                  "project_id = ? ORDER BY rowid LIMIT ? OFFSET ?"
                                : "SELECT id, at, kind, resource_id, message FROM events WHERE "
                                  "project_id = ? ORDER BY at DESC, id DESC LIMIT ? OFFSET ?");
    s.bind(projectId).bind(request.page_size).bind(request.offset());
    while (s.step()) {
      domain::Event e;
      e.id = s.text(0);
      e.project_id = projectId;
      e.at = *s.timestamp(1);
      e.kind = domain::parseEventKind(s.text(2)).value_or(domain::EventKind::job_failed);
      e.resource_id = s.text(3);
      e.message = s.text(4);
      page.items.push_back(std::move(e));
    }
    snapshot.commit();
    return page;
  });
}

}  // namespace certsteward::adapters::sqlite
