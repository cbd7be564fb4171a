// Jobs in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_job_queue.hpp>

namespace certsteward::adapters::mongo {
namespace {

using domain::Job;

constexpr int kCasRetries = 50;

Bson jobDoc(const Job& job, std::int64_t rev) {
  Bson doc = Bson::fromJson(codec::encode(job));
  doc.oid("_id", idOid(job.id)).str("lane", nameOf(job.lane())).i64("rev", rev);
  if (!job.idempotency_key.empty() && !domain::isTerminal(job.status)) {
    doc.str("unfinished_key", job.idempotency_key);  // unique while the job is unfinished
  }
  return doc;
}

struct StoredJob {
  Job job;
  std::int64_t rev = 0;
};

StoredJob readJob(const std::string& json) {
  StoredJob s{decodeOrThrow<Job>(json), 0};
  bson_error_t error;
  bson_t* b = bson_new_from_json(reinterpret_cast<const uint8_t*>(json.data()),
                                 static_cast<ssize_t>(json.size()), &error);
  if (b == nullptr) raise(error);
  bson_iter_t it;
  if (bson_iter_init_find(&it, b, "rev")) s.rev = bson_iter_as_int64(&it);
  bson_destroy(b);
  return s;
}

// Writes `job` if its stored revision is still `rev` (one findAndModify); false when another
// writer won.
bool compareAndSet(Client& c, const Job& job, std::int64_t rev) {
  return c
      .findAndModify("jobs", Bson().oid("_id", idOid(job.id)).i64("rev", rev), jobDoc(job, rev + 1),
                     false, false)
      .has_value();
}

}  // namespace

domain::Result<ports::EnqueueResult> MongoJobQueue::enqueue(const Job& job) {
  return guarded([&]() -> domain::Result<ports::EnqueueResult> {
    auto c = db_.client();
    const auto existing = [&]() -> std::optional<Job> {
      if (job.idempotency_key.empty()) return std::nullopt;
      auto found = c.findOne("jobs", Bson().str("unfinished_key", job.idempotency_key), Bson());
      if (!found) return std::nullopt;
      return decodeOrThrow<Job>(*found);
    };
    if (auto e = existing()) return ports::EnqueueResult{*e, false};
    try {
      c.insert("jobs", jobDoc(job, 1));
    } catch (const MongoError& e) {
      // Lost a race on the unique unfinished_key index: the winner's job is the answer.
      if (isDuplicateKey(e)) {
        if (auto winner = existing()) return ports::EnqueueResult{*winner, false};
      }
      throw;
    }
    return ports::EnqueueResult{job, true};
  });
}

domain::Result<Job> MongoJobQueue::get(const domain::Id& projectId, const domain::Id& id) const {
  return guarded([&]() -> domain::Result<Job> {
    auto c = db_.client();
    auto found =
        c.findOne("jobs", Bson().oid("_id", idOid(id)).str("project_id", projectId), Bson());
    if (!found) return domain::makeError(domain::ErrorCode::not_found, "job not found");
    return decodeOrThrow<Job>(*found);
  });
}

domain::Result<domain::Page<Job>> MongoJobQueue::list(const domain::Id& projectId,
                                                      const ports::JobFilter& filter,
                                                      const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<Job>> {
    auto c = db_.client();
    Bson f;
    f.str("project_id", projectId);
    if (filter.status) f.str("status", nameOf(*filter.status));
    if (filter.type) f.str("type", nameOf(*filter.type));
    if (filter.certificate_id) f.str("certificate_id", *filter.certificate_id);
    if (filter.hide_dismissed) f.null("dismissed_at");  // null or missing
    domain::Page<Job> page;
    page.page = request.page;
    page.page_size = request.page_size;
    page.total = c.count("jobs", f);
    Bson opts;
    opts.doc("sort", Bson().i64("id", -1))
        .i64("skip", request.offset())
        .i64("limit", request.page_size);
    for (const auto& json : c.find("jobs", f, opts))
      page.items.push_back(decodeOrThrow<Job>(json));
    return page;
  });
}

domain::Result<std::map<std::pair<domain::JobType, domain::JobStatus>, std::int64_t>>
MongoJobQueue::countByTypeAndStatus() const {
  return guarded(
      [&]()
          -> domain::Result<std::map<std::pair<domain::JobType, domain::JobStatus>, std::int64_t>> {
        auto c = db_.client();
        std::map<std::pair<domain::JobType, domain::JobStatus>, std::int64_t> counts;
        const auto groups = c.aggregate(
            "jobs",
            R"([{"$group": {"_id": {"type": "$type", "status": "$status"}, "n": {"$sum": 1}}}])");
        for (const auto& json : groups) {
          Bson doc = Bson::fromJson(json);
          bson_iter_t it;
          bson_iter_t child;
          std::string type;
          std::string status;
          if (bson_iter_init_find(&it, doc.get(), "_id") && BSON_ITER_HOLDS_DOCUMENT(&it) &&
              bson_iter_recurse(&it, &child)) {
            while (bson_iter_next(&child)) {
              if (!BSON_ITER_HOLDS_UTF8(&child)) continue;
              const std::string key = bson_iter_key(&child);
              (key == "type" ? type : status) = bson_iter_utf8(&child, nullptr);
            }
          }
          std::int64_t n = 0;
          if (bson_iter_init_find(&it, doc.get(), "n")) n = bson_iter_as_int64(&it);
          const auto t = domain::parseJobType(type);
          const auto st = domain::parseJobStatus(status);
          if (t && st) counts[{*t, *st}] = n;
        }
        return counts;
      });
}

domain::Result<ports::ClaimResult> MongoJobQueue::claim(domain::Lane lane,
                                                        const domain::JobContext& ctx) {
  return guarded([&]() -> domain::Result<ports::ClaimResult> {
    auto c = db_.client();
    ports::ClaimResult result;
    const std::string laneName(nameOf(lane));
    // Bounded: each pass either settles an expired job, claims one, or loses a race.
    for (int pass = 0; pass < kCasRetries * 4; ++pass) {
      Bson expiredFilter;
      expiredFilter.str("lane", laneName)
          .str("status", "active")
          .doc("lock_expires_at", Bson().ts("$lte", ctx.now));
      auto found = c.findOne("jobs", expiredFilter,
                             Bson().doc("sort", Bson().i64("lock_expires_at", 1).i64("id", 1)));
      domain::JobEvent event = domain::JobEvent::reclaim;
      if (!found) {
        Bson dueFilter;
        dueFilter.str("lane", laneName)
            .doc("status", Bson().strings("$in", {"pending", "failed"}))
            .doc("next_run_at", Bson().ts("$lte", ctx.now));
        found = c.findOne("jobs", dueFilter,
                          Bson().doc("sort", Bson().i64("next_run_at", 1).i64("id", 1)));
        event = domain::JobEvent::claim;
      }
      if (!found) return result;
      StoredJob stored = readJob(*found);
      auto applied = domain::applyJobEvent(stored.job, event, ctx);
      if (!applied) continue;  // changed under us between read and check: look again
      if (!compareAndSet(c, stored.job, stored.rev)) continue;  // another worker won
      if (stored.job.status == domain::JobStatus::active) {
        result.claimed = stored.job;
        return result;
      }
      result.settled.push_back(ports::JobUpdate{stored.job, *applied});
    }
    return result;
  });
}

domain::Result<ports::JobUpdate> MongoJobQueue::apply(const domain::Id& id, domain::JobEvent event,
                                                      const domain::JobContext& ctx) {
  return guarded([&]() -> domain::Result<ports::JobUpdate> {
    auto c = db_.client();
    for (int attempt = 0; attempt < kCasRetries; ++attempt) {
      auto found = c.findOne("jobs", Bson().oid("_id", idOid(id)), Bson());
      if (!found) return domain::makeError(domain::ErrorCode::not_found, "job not found");
      StoredJob stored = readJob(*found);
      auto applied = domain::applyJobEvent(stored.job, event, ctx);
      if (!applied) return applied.error();
      if (!stored.job.idempotency_key.empty() && !domain::isTerminal(stored.job.status)) {
        // The unique index settles races on a real server; this gives the clear answer.
        Bson other;
        other.str("unfinished_key", stored.job.idempotency_key)
            .doc("_id", Bson().oid("$ne", idOid(stored.job.id)));
        if (c.findOne("jobs", other, Bson())) {
          return domain::makeError(domain::ErrorCode::conflict,
                                   "another unfinished job has the same idempotency key");
        }
      }
      if (compareAndSet(c, stored.job, stored.rev)) {
        return ports::JobUpdate{std::move(stored.job), *applied};
      }
    }
    return domain::makeError(domain::ErrorCode::unavailable,
                             "the job is changing too often; try again");
  });
}

}  // namespace certsteward::adapters::mongo
