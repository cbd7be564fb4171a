// Project events in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_event_log.hpp>

namespace certsteward::adapters::mongo {

domain::Status MongoEventLog::record(const domain::Event& e) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.insert("events", Bson()
                           .str("id", e.id)
                           .str("project_id", e.project_id)
                           .ts("at", e.at)
                           .str("kind", nameOf(e.kind))
                           .str("resource_id", e.resource_id)
                           .str("message", e.message));
    return {};
  });
}

domain::Result<domain::Page<domain::Event>> MongoEventLog::list(
    const domain::Id& projectId, const domain::PageRequest& request) const {
  return read(projectId, request, false);
}

domain::Result<domain::Page<domain::Event>> MongoEventLog::listInOrder(
    const domain::Id& projectId, const domain::PageRequest& request) const {
  return read(projectId, request, true);
}

domain::Result<domain::Page<domain::Event>> MongoEventLog::read(const domain::Id& projectId,
                                                                const domain::PageRequest& request,
                                                                bool inOrder) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::Event>> {
    auto c = db_.client();
    domain::Page<domain::Event> page;
    page.page = request.page;
    page.page_size = request.page_size;
    page.total = c.count("events", Bson().str("project_id", projectId));
    Bson opts;
    // In order: by _id (the driver's ObjectId at insert: creation order, across instances to
    // the second).
    opts.doc("sort", inOrder ? Bson().i64("_id", 1) : Bson().i64("at", -1).i64("id", -1))
        .i64("skip", request.offset())
        .i64("limit", request.page_size);
    const auto text = [](const Bson& doc, const char* key) {
      bson_iter_t it;
      return bson_iter_init_find(&it, doc.get(), key) && BSON_ITER_HOLDS_UTF8(&it)
                 ? std::string(bson_iter_utf8(&it, nullptr))
                 : std::string();
    };
    for (const auto& json : c.find("events", Bson().str("project_id", projectId), opts)) {
      Bson doc = Bson::fromJson(json);
      domain::Event event;
      event.id = text(doc, "id");
      event.project_id = projectId;
      bson_iter_t it;
      if (bson_iter_init_find(&it, doc.get(), "at")) {
        event.at = domain::Timestamp{domain::Duration{bson_iter_as_int64(&it)}};
      }
      event.kind =
          domain::parseEventKind(text(doc, "kind")).value_or(domain::EventKind::job_failed);
      event.resource_id = text(doc, "resource_id");
      event.message = text(doc, "message");
      page.items.push_back(std::move(event));
    }
    return page;
  });
}

}  // namespace certsteward::adapters::mongo
