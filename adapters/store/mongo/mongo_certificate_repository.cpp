// Certificates in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_certificate_repository.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>

#include <boost/json.hpp>

namespace certsteward::adapters::mongo {
namespace {

using domain::Certificate;

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
    // The common name or any SAN (a regex on an array matches any of its elements).
    bson_t either;
    bson_append_array_begin(filter.get(), "$or", -1, &either);
    Bson byCommonName;
    byCommonName.doc("common_name", Bson().str("$regex", pattern));
    Bson bySan;
    bySan.doc("sans", Bson().str("$regex", pattern));
    bson_append_document(&either, "0", -1, byCommonName.get());
    bson_append_document(&either, "1", -1, bySan.get());
    bson_append_array_end(filter.get(), &either);
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

domain::Result<std::vector<Certificate>> MongoCertificateRepository::dueForRenewalInfo(
    domain::Timestamp now, std::int64_t limit) const {
  return guarded([&]() -> domain::Result<std::vector<Certificate>> {
    auto c = db_.client();
    Bson filter;
    // $exists repeats the partial index's filter, so the planner can use the index (a numeric
    // range never matches the nulls of certificates not asked).
    filter.doc("ari_poll_at", Bson().boolean("$exists", true).ts("$lte", now));
    std::vector<Certificate> out;
    appendRange(c, filter, Bson().i64("ari_poll_at", 1).i64("id", 1), 0, limit, out);
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

}  // namespace certsteward::adapters::mongo
