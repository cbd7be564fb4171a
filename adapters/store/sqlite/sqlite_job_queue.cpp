// Jobs in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_job_queue.hpp>

#include <certsteward/adapters/store/codec/json_codec.hpp>

namespace certsteward::adapters::sqlite {
namespace {

using domain::Job;

Job read(const Statement& s, int column) {
  auto decoded = codec::decode<Job>(s.text(column));
  if (!decoded) throw SqliteError(0, "stored job is corrupt");
  return std::move(*decoded);
}

std::optional<std::string> keyColumn(const Job& job) {
  if (job.idempotency_key.empty()) return std::nullopt;
  return job.idempotency_key;
}

void write(Connection& c, const Job& job) {
  auto s = c.prepare(
      "UPDATE jobs SET status = ?, next_run_at = ?, lock_expires_at = ?, idempotency_key = ?, "
      "doc = ? WHERE id = ?");
  s.bind(std::string(nameOf(job.status)))
      .bind(job.next_run_at)
      .bind(job.lock_expires_at)
      .bind(keyColumn(job))
      .bind(codec::encode(job))
      .bind(job.id);
  s.run();
}

// Applies `event` to the job read by `select` (first row), writes it; nullopt when no row.
std::optional<domain::Result<ports::JobUpdate>> applyTo(Connection& c, Statement& select,
                                                        domain::JobEvent event,
                                                        const domain::JobContext& ctx) {
  if (!select.step()) return std::nullopt;
  Job job = read(select, 0);
  auto applied = domain::applyJobEvent(job, event, ctx);
  if (!applied) return domain::Result<ports::JobUpdate>(applied.error());
  try {
    write(c, job);
  } catch (const SqliteError& e) {
    if ((e.code() & 0xff) != 19 /* SQLITE_CONSTRAINT: the unfinished-key index */) throw;
    return domain::Result<ports::JobUpdate>(domain::makeError(
        domain::ErrorCode::conflict, "another unfinished job has the same idempotency key"));
  }
  return domain::Result<ports::JobUpdate>(ports::JobUpdate{std::move(job), *applied});
}

}  // namespace

domain::Result<ports::EnqueueResult> SqliteJobQueue::enqueue(const Job& job) {
  return guarded([&]() -> domain::Result<ports::EnqueueResult> {
    auto c = db_.writer();
    Transaction tx(*c, true);
    if (!job.idempotency_key.empty()) {
      auto existing = c->prepare(
          "SELECT doc FROM jobs WHERE idempotency_key = ? AND status IN ('pending', 'active', "
          "'failed')");
      existing.bind(job.idempotency_key);
      if (existing.step()) return ports::EnqueueResult{read(existing, 0), false};
    }
    auto s = c->prepare(
        "INSERT INTO jobs (id, project_id, lane, type, status, certificate_id, idempotency_key, "
        "next_run_at, lock_expires_at, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
    s.bind(job.id)
        .bind(job.project_id)
        .bind(std::string(nameOf(job.lane())))
        .bind(std::string(nameOf(job.type)))
        .bind(std::string(nameOf(job.status)))
        .bind(job.certificate_id)
        .bind(keyColumn(job))
        .bind(job.next_run_at)
        .bind(job.lock_expires_at)
        .bind(codec::encode(job));
    s.run();
    tx.commit();
    return ports::EnqueueResult{job, true};
  });
}

domain::Result<Job> SqliteJobQueue::get(const domain::Id& projectId, const domain::Id& id) const {
  return guarded([&]() -> domain::Result<Job> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT doc FROM jobs WHERE id = ? AND project_id = ?");
    s.bind(id).bind(projectId);
    if (!s.step()) return domain::makeError(domain::ErrorCode::not_found, "job not found");
    return read(s, 0);
  });
}

domain::Result<domain::Page<Job>> SqliteJobQueue::list(const domain::Id& projectId,
                                                       const ports::JobFilter& filter,
                                                       const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<Job>> {
    std::string where = "project_id = ?";
    if (filter.status) where += " AND status = ?";
    if (filter.type) where += " AND type = ?";
    if (filter.certificate_id) where += " AND certificate_id = ?";
    if (filter.hide_dismissed) where += " AND json_extract(doc, '$.dismissed_at') IS NULL";
    const auto bind = [&](Statement& s) {
      s.bind(projectId);
      if (filter.status) s.bind(std::string(nameOf(*filter.status)));
      if (filter.type) s.bind(std::string(nameOf(*filter.type)));
      if (filter.certificate_id) s.bind(*filter.certificate_id);
    };
    auto c = db_.reader();
    Transaction snapshot(*c, false);
    domain::Page<Job> page;
    page.page = request.page;
    page.page_size = request.page_size;
    auto count = c->prepare("SELECT COUNT(*) FROM jobs WHERE " + where);
    bind(count);
    count.step();
    page.total = count.integer(0);
    auto s =
        c->prepare("SELECT doc FROM jobs WHERE " + where + " ORDER BY id DESC LIMIT ? OFFSET ?");
    bind(s);
    s.bind(request.page_size).bind(request.offset());
    while (s.step())
      page.items.push_back(read(s, 0));
    snapshot.commit();
    return page;
  });
}

domain::Result<std::map<std::pair<domain::JobType, domain::JobStatus>, std::int64_t>>
SqliteJobQueue::countByTypeAndStatus() const {
  return guarded(
      [&]()
          -> domain::Result<std::map<std::pair<domain::JobType, domain::JobStatus>, std::int64_t>> {
        auto c = db_.reader();
        // Answered from the (status, type) index without reading the jobs themselves.
        auto s = c->prepare("SELECT type, status, COUNT(*) FROM jobs GROUP BY status, type");
        std::map<std::pair<domain::JobType, domain::JobStatus>, std::int64_t> counts;
        while (s.step()) {
          const auto type = domain::parseJobType(s.text(0));
          const auto status = domain::parseJobStatus(s.text(1));
          if (type && status) counts[{*type, *status}] = s.integer(2);
        }
        return counts;
      });
}

domain::Result<ports::ClaimResult> SqliteJobQueue::claim(domain::Lane lane,
                                                         const domain::JobContext& ctx) {
  return guarded([&]() -> domain::Result<ports::ClaimResult> {
    const std::string laneName(nameOf(lane));
    auto c = db_.writer();
    Transaction tx(*c, true);
    ports::ClaimResult result;
    // Expired locks first (their workers are gone); each is reclaimed or settled. Bounded: every
    // pass changes one expired job so it leaves the range.
    for (int guard = 0; guard < 1000; ++guard) {
      auto expired = c->prepare(
          "SELECT doc FROM jobs WHERE lane = ? AND status = 'active' AND lock_expires_at <= ? "
          "ORDER BY lock_expires_at, id LIMIT 1");
      expired.bind(laneName).bind(ctx.now);
      auto update = applyTo(*c, expired, domain::JobEvent::reclaim, ctx);
      if (!update) break;
      if (!*update) return update->error();
      if ((*update)->job.status == domain::JobStatus::active) {
        result.claimed = (*update)->job;
        tx.commit();
        return result;
      }
      result.settled.push_back(std::move(**update));
    }
    auto due = c->prepare(
        "SELECT doc FROM jobs WHERE lane = ? AND status IN ('pending', 'failed') AND "
        "next_run_at <= ? ORDER BY next_run_at, id LIMIT 1");
    due.bind(laneName).bind(ctx.now);
    if (auto update = applyTo(*c, due, domain::JobEvent::claim, ctx)) {
      if (!*update) return update->error();
      result.claimed = (*update)->job;
    }
    tx.commit();
    return result;
  });
}

domain::Result<ports::JobUpdate> SqliteJobQueue::apply(const domain::Id& id, domain::JobEvent event,
                                                       const domain::JobContext& ctx) {
  return guarded([&]() -> domain::Result<ports::JobUpdate> {
    auto c = db_.writer();
    Transaction tx(*c, true);
    auto select = c->prepare("SELECT doc FROM jobs WHERE id = ?");
    select.bind(id);
    auto update = applyTo(*c, select, event, ctx);
    if (!update) return domain::makeError(domain::ErrorCode::not_found, "job not found");
    if (*update) tx.commit();
    return std::move(*update);
  });
}

}  // namespace certsteward::adapters::sqlite
