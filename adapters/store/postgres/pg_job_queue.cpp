// Jobs in PostgreSQL. Every change is a read-modify-write through the domain's job table on a
// row locked for the transaction.
#include <certsteward/adapters/store/postgres/pg_job_queue.hpp>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {
namespace {

using domain::Job;

std::optional<std::string> keyColumn(const Job& job) {
  if (job.idempotency_key.empty()) return std::nullopt;
  return job.idempotency_key;
}

// Applies `event` to the job in row `row` of `selected` (locked by the caller's transaction)
// and writes it; nullopt when there is no such row. `own`: the transaction is the queue's own (not
// one of its caller that it joined).
std::optional<domain::Result<ports::JobUpdate>> applyTo(PgDatabase& db, const Rows& selected,
                                                        domain::JobEvent event,
                                                        const domain::JobContext& ctx, bool own,
                                                        int row = 0) {
  if (selected.size() <= row) return std::nullopt;
  Job job = document<Job>(selected, row, 0);
  auto applied = domain::applyJobEvent(job, event, ctx);
  if (!applied) return domain::Result<ports::JobUpdate>(applied.error());
  const auto written =
      uniqueWrite(db,
                  "UPDATE jobs SET status = ?, next_run_at = ?, "
                  "lock_expires_at = ?, idempotency_key = ?, doc = ? WHERE id = ?",
                  {p(std::string(nameOf(job.status))), p(job.next_run_at), p(job.lock_expires_at),
                   p(keyColumn(job)), p(codec::encode(job)), p(job.id)},
                  own);
  if (!written) {  // the unfinished-key index
    return domain::Result<ports::JobUpdate>(domain::makeError(
        domain::ErrorCode::conflict, "another unfinished job has the same idempotency key"));
  }
  return domain::Result<ports::JobUpdate>(ports::JobUpdate{std::move(job), *applied});
}

// Runs `body` in a transaction (joining the caller's) and hands back what it stored in `out`.
template <class T>
domain::Result<T> inTransaction(PgDatabase& db, const std::vector<std::string>& guards,
                                const std::function<domain::Result<T>()>& body) {
  std::optional<domain::Result<T>> out;
  auto done = db.transact(guards, [&]() -> domain::Status {
    out = body();
    if (!*out) return out->error();
    return {};
  });
  if (!done) return done.error();
  return std::move(*out);
}

}  // namespace

domain::Result<ports::EnqueueResult> PgJobQueue::enqueue(const Job& job) {
  // One key's enqueues run one after another (the guard), so the one that finds no unfinished
  // job with it is the only one to insert.
  std::vector<std::string> guards;
  if (!job.idempotency_key.empty()) guards.push_back("certsteward:job-key:" + job.idempotency_key);
  const bool own = !db_.inTransaction();
  return inTransaction<ports::EnqueueResult>(
      db_, guards, [&]() -> domain::Result<ports::EnqueueResult> {
        return guarded([&]() -> domain::Result<ports::EnqueueResult> {
          if (!job.idempotency_key.empty()) {
            const auto existing = db_.exec(q("SELECT doc FROM jobs WHERE idempotency_key = ? AND "
                                             "status IN ('pending', 'active', 'failed')"),
                                           {p(job.idempotency_key)});
            if (!existing.empty()) {
              return ports::EnqueueResult{document<Job>(existing, 0, 0), false};
            }
          }
          const auto written = uniqueWrite(
              db_,
              "INSERT INTO jobs (id, project_id, lane, type, status, certificate_id, "
              "idempotency_key, next_run_at, lock_expires_at, doc) VALUES (?, ?, ?, ?, ?, ?, ?, "
              "?, ?, ?)",
              {p(job.id), p(job.project_id), p(std::string(nameOf(job.lane()))),
               p(std::string(nameOf(job.type))), p(std::string(nameOf(job.status))),
               p(job.certificate_id), p(keyColumn(job)), p(job.next_run_at), p(job.lock_expires_at),
               p(codec::encode(job))},
              own);
          if (!written) {
            return conflict(
                "a job with this id, or an unfinished job with this idempotency key, exists");
          }
          return ports::EnqueueResult{job, true};
        });
      });
}

domain::Result<Job> PgJobQueue::get(const domain::Id& projectId, const domain::Id& id) const {
  return guarded([&]() -> domain::Result<Job> {
    const auto rows =
        db_.exec(q("SELECT doc FROM jobs WHERE id = ? AND project_id = ?"), {p(id), p(projectId)});
    if (rows.empty()) return domain::makeError(domain::ErrorCode::not_found, "job not found");
    return document<Job>(rows, 0, 0);
  });
}

domain::Result<domain::Page<Job>> PgJobQueue::list(const domain::Id& projectId,
                                                   const ports::JobFilter& filter,
                                                   const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<Job>> {
    std::string where = "project_id = ?";
    std::vector<Param> params{p(projectId)};
    if (filter.status) {
      where += " AND status = ?";
      params.push_back(p(std::string(nameOf(*filter.status))));
    }
    if (filter.type) {
      where += " AND type = ?";
      params.push_back(p(std::string(nameOf(*filter.type))));
    }
    if (filter.certificate_id) {
      where += " AND certificate_id = ?";
      params.push_back(p(*filter.certificate_id));
    }
    if (filter.hide_dismissed) where += " AND (doc::jsonb ->> 'dismissed_at') IS NULL";
    return pageOf<Job>(db_, "SELECT COUNT(*) FROM jobs WHERE " + where,
                       "SELECT doc FROM jobs WHERE " + where + " ORDER BY id DESC LIMIT ? OFFSET ?",
                       params, request);
  });
}

domain::Result<std::map<std::pair<domain::JobType, domain::JobStatus>, std::int64_t>>
PgJobQueue::countByTypeAndStatus() const {
  using Counts = std::map<std::pair<domain::JobType, domain::JobStatus>, std::int64_t>;
  return guarded([&]() -> domain::Result<Counts> {
    const auto rows = db_.exec("SELECT type, status, COUNT(*) FROM jobs GROUP BY status, type");
    Counts counts;
    for (int i = 0; i < rows.size(); ++i) {
      const auto type = domain::parseJobType(rows.text(i, 0));
      const auto status = domain::parseJobStatus(rows.text(i, 1));
      if (type && status) counts[{*type, *status}] = rows.integer(i, 2);
    }
    return counts;
  });
}

domain::Result<ports::ClaimResult> PgJobQueue::claim(domain::Lane lane,
                                                     const domain::JobContext& ctx) {
  const std::string laneName(nameOf(lane));
  const bool own = !db_.inTransaction();
  return inTransaction<ports::ClaimResult>(db_, {}, [&]() -> domain::Result<ports::ClaimResult> {
    return guarded([&]() -> domain::Result<ports::ClaimResult> {
      ports::ClaimResult result;
      // Expired locks first (their workers are gone); each is reclaimed or settled. One
      // statement finds the oldest expired lock and the next due job, each locked (a row
      // another worker has locked is skipped, not waited for). Bounded: every pass changes one
      // expired job so it leaves the range.
      for (int guard = 0; guard < 1000; ++guard) {
        const auto next = db_.exec(
            q("WITH expired AS (SELECT doc FROM jobs WHERE lane = ? AND status = 'active' AND "
              "lock_expires_at <= ? ORDER BY lock_expires_at, id LIMIT 1 FOR UPDATE SKIP LOCKED), "
              "due AS (SELECT doc FROM jobs WHERE lane = ? AND status IN ('pending', 'failed') "
              "AND next_run_at <= ? ORDER BY next_run_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) "
              "SELECT doc, 'expired' FROM expired UNION ALL SELECT doc, 'due' FROM due"),
            {p(laneName), p(ctx.now), p(laneName), p(ctx.now)});
        if (next.empty()) return result;
        if (next.text(0, 1) == "due") {
          auto update = applyTo(db_, next, domain::JobEvent::claim, ctx, own);
          if (!*update) return update->error();
          result.claimed = (*update)->job;
          return result;
        }
        auto update = applyTo(db_, next, domain::JobEvent::reclaim, ctx, own);
        if (!*update) return update->error();
        if ((*update)->job.status == domain::JobStatus::active) {
          result.claimed = (*update)->job;
          return result;
        }
        result.settled.push_back(std::move(**update));
      }
      return result;
    });
  });
}

domain::Result<ports::JobUpdate> PgJobQueue::apply(const domain::Id& id, domain::JobEvent event,
                                                   const domain::JobContext& ctx) {
  const bool own = !db_.inTransaction();
  return inTransaction<ports::JobUpdate>(db_, {}, [&]() -> domain::Result<ports::JobUpdate> {
    return guarded([&]() -> domain::Result<ports::JobUpdate> {
      const auto selected = db_.exec(q("SELECT doc FROM jobs WHERE id = ? FOR UPDATE"), {p(id)});
      auto update = applyTo(db_, selected, event, ctx, own);
      if (!update) return domain::makeError(domain::ErrorCode::not_found, "job not found");
      return std::move(*update);
    });
  });
}

}  // namespace certsteward::adapters::postgres
