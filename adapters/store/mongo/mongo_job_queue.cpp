// Certificates, jobs and job logs in MongoDB.
#include <algorithm>
#include <cctype>
#include <charconv>

#include <boost/json.hpp>

#include "adapters/store/mongo/mongo_repositories.hpp"

namespace certsteward::adapters::mongo {
namespace {

using domain::Certificate;
using domain::Job;

constexpr int kCasRetries = 50;

Bson certificateDoc(const Certificate& c, std::int64_t version) {
  Certificate stored = c;
  stored.version = version;
  Bson doc = Bson::fromJson(codec::encode(stored));
  doc.oid("_id", idOid(c.id));
  return doc;
}

Bson certificateFilter(const domain::Id& projectId, const ports::CertificateFilter& f) {
  Bson filter;
  filter.str("project_id", projectId);
  if (!f.statuses.empty()) {
    std::vector<std::string> names;
    for (auto s : f.statuses)
      names.emplace_back(nameOf(s));
    filter.doc("status", Bson().strings("$in", names));
  }
  if (f.expires_before) filter.doc("expires_at", Bson().ts("$lt", *f.expires_before));
  if (f.issuer_type) filter.str("issuer_type", *f.issuer_type);
  if (f.name_contains) {
    std::string pattern;  // the text literally: ASCII punctuation escaped
    for (const char ch : *f.name_contains) {
      const auto u = static_cast<unsigned char>(ch);
      if (u < 0x80 && !std::isalnum(u)) pattern.push_back('\\');
      pattern.push_back(ch);
    }
    filter.doc("common_name", Bson().str("$regex", pattern));
  }
  return filter;
}

// The filter with one more condition on `field` (present or missing). `field` is never one the
// filter already constrains (see ports::sortFieldMayBeMissing).
Bson withCondition(const domain::Id& projectId, const ports::CertificateFilter& f,
                   const char* field, bool present) {
  Bson filter = certificateFilter(projectId, f);
  if (present) {
    filter.doc(field, Bson().null("$ne"));
  } else {
    filter.null(field);
  }
  return filter;
}

void appendRange(Client& c, const Bson& filter, const Bson& sort, std::int64_t skip,
                 std::int64_t limit, std::vector<Certificate>& out) {
  if (limit <= 0) return;
  Bson opts;
  opts.doc("sort", sort).i64("skip", skip).i64("limit", limit);
  for (const auto& json : c.find("certificates", filter, opts)) {
    out.push_back(decodeOrThrow<Certificate>(json));
  }
}

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

// ---- certificates ----
namespace {

// After the write, so a reader that saw the old generation read data at least that new.
void bumpGeneration(Client& c, const domain::Id& projectId, common::GenerationMemo& memo) {
  c.updateOne("certificate_generations", Bson().oid("_id", keyOid("generation:" + projectId)),
              Bson().doc("$inc", Bson().i64("generation", 1)), true);
  memo.invalidate(projectId);
}

}  // namespace

domain::Status MongoCertificateRepository::create(const Certificate& cert) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.insert("certificates", certificateDoc(cert, 1));
    bumpGeneration(c, cert.project_id, generations_);
    return {};
  });
}

domain::Result<Certificate> MongoCertificateRepository::get(const domain::Id& projectId,
                                                            const domain::Id& id) const {
  return guarded([&]() -> domain::Result<Certificate> {
    auto c = db_.client();
    auto found = c.findOne("certificates",
                           Bson().oid("_id", idOid(id)).str("project_id", projectId), Bson());
    if (!found) return domain::makeError(domain::ErrorCode::not_found, "certificate not found");
    return decodeOrThrow<Certificate>(*found);
  });
}

domain::Result<domain::Page<Certificate>> MongoCertificateRepository::list(
    const domain::Id& projectId, const ports::CertificateFilter& filter,
    const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<Certificate>> {
    auto c = db_.client();
    domain::Page<Certificate> page;
    page.page = request.page;
    page.page_size = request.page_size;
    page.total = c.count("certificates", certificateFilter(projectId, filter));
    const std::int64_t dir = filter.order == domain::SortOrder::desc ? -1 : 1;
    const char* field = ports::sortField(filter.sort);
    Bson sort;
    sort.i64(field, dir).i64("id", dir);
    if (!ports::sortFieldMayBeMissing(filter)) {
      appendRange(c, certificateFilter(projectId, filter), sort, request.offset(),
                  request.page_size, page.items);
      return page;
    }
    // Values first in the requested order, then the certificates without one, by id.
    const std::int64_t missing =
        c.count("certificates", withCondition(projectId, filter, field, false));
    const std::int64_t present = page.total - missing;
    appendRange(c, withCondition(projectId, filter, field, true), sort, request.offset(),
                std::min(request.page_size, present - request.offset()), page.items);
    const std::int64_t still = request.page_size - static_cast<std::int64_t>(page.items.size());
    appendRange(c, withCondition(projectId, filter, field, false), Bson().i64("id", dir),
                std::max<std::int64_t>(0, request.offset() - present), still, page.items);
    return page;
  });
}

domain::Result<Certificate> MongoCertificateRepository::update(const Certificate& cert) {
  return guarded([&]() -> domain::Result<Certificate> {
    auto c = db_.client();
    const auto matched = c.replaceOne("certificates",
                                      Bson()
                                          .oid("_id", idOid(cert.id))
                                          .str("project_id", cert.project_id)
                                          .i64("version", cert.version),
                                      certificateDoc(cert, cert.version + 1));
    if (matched == 1) {
      bumpGeneration(c, cert.project_id, generations_);
      Certificate stored = cert;
      stored.version = cert.version + 1;
      return stored;
    }
    if (!c.findOne("certificates",
                   Bson().oid("_id", idOid(cert.id)).str("project_id", cert.project_id), Bson())) {
      return domain::makeError(domain::ErrorCode::not_found, "certificate not found");
    }
    return domain::makeError(domain::ErrorCode::conflict,
                             "the certificate was changed concurrently; re-read and retry");
  });
}

domain::Status MongoCertificateRepository::remove(const domain::Id& projectId,
                                                  const domain::Id& id) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    if (c.deleteMany("certificates", Bson().oid("_id", idOid(id)).str("project_id", projectId)) ==
        0) {
      return domain::makeError(domain::ErrorCode::not_found, "certificate not found");
    }
    bumpGeneration(c, projectId, generations_);
    return {};
  });
}

domain::Result<std::int64_t> MongoCertificateRepository::generation(
    const domain::Id& projectId) const {
  if (auto known = generations_.find(projectId)) return *known;
  const auto ticket = generations_.ticket();
  return guarded([&]() -> domain::Result<std::int64_t> {
    auto c = db_.client();
    auto found = c.findOne("certificate_generations",
                           Bson().oid("_id", keyOid("generation:" + projectId)), Bson());
    std::int64_t generation = 0;
    if (!found) {
      generations_.remember(projectId, 0, ticket);
      return generation;
    }
    boost::system::error_code ec;
    const auto doc = boost::json::parse(*found, ec);
    const auto* value =
        ec || !doc.is_object() ? nullptr : doc.as_object().if_contains("generation");
    if (value != nullptr && value->is_int64()) {
      generation = value->as_int64();
    } else if (value != nullptr && value->is_object()) {  // relaxed extended JSON: $numberLong
      const auto* text = value->as_object().if_contains("$numberLong");
      if (text != nullptr && text->is_string()) {
        const auto digits = text->as_string();
        std::from_chars(digits.data(), digits.data() + digits.size(), generation);
      }
    }
    generations_.remember(projectId, generation, ticket);
    return generation;
  });
}

domain::Result<std::map<domain::CertificateStatus, std::int64_t>>
MongoCertificateRepository::countByStatus() const {
  return guarded([&]() -> domain::Result<std::map<domain::CertificateStatus, std::int64_t>> {
    auto c = db_.client();
    std::map<domain::CertificateStatus, std::int64_t> counts;
    for (auto status : {domain::CertificateStatus::issuing, domain::CertificateStatus::active,
                        domain::CertificateStatus::renewal_pending,
                        domain::CertificateStatus::renewal_in_progress,
                        domain::CertificateStatus::renewal_failed}) {
      const auto n = c.count("certificates", Bson().str("status", nameOf(status)));
      if (n > 0) counts[status] = n;
    }
    return counts;
  });
}

domain::Result<std::int64_t> MongoCertificateRepository::countMatching(
    const domain::Id& projectId, const ports::CertificateFilter& filter) const {
  return guarded([&]() -> domain::Result<std::int64_t> {
    auto c = db_.client();
    return c.count("certificates", certificateFilter(projectId, filter));
  });
}

domain::Result<std::int64_t> MongoCertificateRepository::countAll() const {
  return guarded([&]() -> domain::Result<std::int64_t> {
    auto c = db_.client();
    return c.count("certificates", Bson());
  });
}

domain::Result<std::int64_t> MongoCertificateRepository::countExpiringBefore(
    domain::Timestamp before) const {
  return guarded([&]() -> domain::Result<std::int64_t> {
    auto c = db_.client();
    return c.count("certificates", Bson().doc("expires_at", Bson().ts("$lt", before)));
  });
}

domain::Result<std::vector<Certificate>> MongoCertificateRepository::dueForRenewal(
    domain::Timestamp now, std::int64_t limit) const {
  return guarded([&]() -> domain::Result<std::vector<Certificate>> {
    auto c = db_.client();
    Bson filter;
    filter.boolean("auto_renew", true)
        .doc("status", Bson().strings("$in", {"active", "renewal_failed"}))
        .doc("next_renewal_at", Bson().ts("$lte", now));
    std::vector<Certificate> out;
    appendRange(c, filter, Bson().i64("next_renewal_at", 1).i64("id", 1), 0, limit, out);
    return out;
  });
}

domain::Result<std::vector<Certificate>> MongoCertificateRepository::distributionPendingSince(
    domain::Timestamp before, std::int64_t limit) const {
  return guarded([&]() -> domain::Result<std::vector<Certificate>> {
    auto c = db_.client();
    Bson filter;
    filter.boolean("distribution_pending", true)
        .doc("distribution_pending_since", Bson().ts("$lt", before));
    std::vector<Certificate> out;
    appendRange(c, filter, Bson().i64("distribution_pending_since", 1).i64("id", 1), 0, limit, out);
    return out;
  });
}

// ---- jobs ----
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

// ---- job logs ----
domain::Status MongoJobLogRepository::append(const domain::JobLogEntry& e) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.insert("job_logs", Bson()
                             .str("job_id", e.job_id)
                             .ts("ts", e.ts)
                             .str("level", nameOf(e.level))
                             .str("message", e.message));
    return {};
  });
}

domain::Result<domain::Page<domain::JobLogEntry>> MongoJobLogRepository::list(
    const domain::Id& jobId, const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<domain::JobLogEntry>> {
    auto c = db_.client();
    domain::Page<domain::JobLogEntry> page;
    page.page = request.page;
    page.page_size = request.page_size;
    page.total = c.count("job_logs", Bson().str("job_id", jobId));
    Bson opts;
    opts.doc("sort", Bson().i64("ts", 1).i64("_id", 1))
        .i64("skip", request.offset())
        .i64("limit", request.page_size);
    for (const auto& json : c.find("job_logs", Bson().str("job_id", jobId), opts)) {
      Bson doc = Bson::fromJson(json);
      domain::JobLogEntry entry;
      entry.job_id = jobId;
      bson_iter_t it;
      if (bson_iter_init_find(&it, doc.get(), "ts")) {
        entry.ts = domain::Timestamp{domain::Duration{bson_iter_as_int64(&it)}};
      }
      if (bson_iter_init_find(&it, doc.get(), "level") && BSON_ITER_HOLDS_UTF8(&it)) {
        entry.level =
            domain::parseLogLevel(bson_iter_utf8(&it, nullptr)).value_or(domain::LogLevel::info);
      }
      if (bson_iter_init_find(&it, doc.get(), "message") && BSON_ITER_HOLDS_UTF8(&it)) {
        entry.message = bson_iter_utf8(&it, nullptr);
      }
      page.items.push_back(std::move(entry));
    }
    return page;
  });
}

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
