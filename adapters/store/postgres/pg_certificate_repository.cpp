// Certificates in PostgreSQL. A list's total comes from the trigger-kept counts where the filter
// allows; its page is found by ids in an index (an index-only scan steps over a deep offset)
// and then read by primary key, in one statement. Certificates without the sort value come
// last, read as a second range, as on SQLite.
#include <certsteward/adapters/store/postgres/pg_certificate_repository.hpp>

#include <algorithm>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

#include <certsteward/adapters/store/codec/resource_keys.hpp>

namespace certsteward::adapters::postgres {
namespace {

using domain::Certificate;

domain::Error certificateNotFound() {
  return domain::makeError(domain::ErrorCode::not_found, "certificate not found");
}

// status, issuer_type, common_name, auto_renew, created_at, expires_at, next_renewal_at,
// distribution_pending, distribution_pending_since, ari_poll_at, version, doc, names.
void addColumns(std::vector<Param>& params, const Certificate& c, std::int64_t version) {
  Certificate stored = c;
  stored.version = version;
  params.push_back(p(std::string(nameOf(c.status))));
  params.push_back(p(c.issuer_type));
  params.push_back(p(c.common_name));
  params.push_back(p(c.auto_renew));
  params.push_back(p(c.created_at));
  params.push_back(p(c.expires_at));
  params.push_back(p(c.next_renewal_at));
  params.push_back(p(c.distribution_pending));
  params.push_back(p(c.distribution_pending_since));
  params.push_back(p(c.ari_poll_at));
  params.push_back(p(version));
  params.push_back(p(codec::encode(stored)));
  params.push_back(p(codec::certificateSearchNames(c)));
}

// The WHERE clause of a filter (with `?`), and its parameters in order.
struct Where {
  std::string sql;
  std::vector<Param> params;
};

Where whereFor(const domain::Id& projectId, const ports::CertificateFilter& f) {
  Where w{"project_id = ?", {p(projectId)}};
  if (!f.statuses.empty()) {
    w.sql += " AND status IN (";
    for (std::size_t i = 0; i < f.statuses.size(); ++i) {
      w.sql += i == 0 ? "?" : ", ?";
      w.params.push_back(p(std::string(nameOf(f.statuses[i]))));
    }
    w.sql += ")";
  }
  if (f.expires_before) {
    w.sql += " AND expires_at IS NOT NULL AND expires_at < ?";
    w.params.push_back(p(*f.expires_before));
  }
  if (f.issuer_type) {
    w.sql += " AND issuer_type = ?";
    w.params.push_back(p(*f.issuer_type));
  }
  if (f.name_contains) {
    w.sql += " AND strpos(names, ?) > 0";
    w.params.push_back(p(*f.name_contains));
  }
  return w;
}

std::int64_t count(PgDatabase& db, const domain::Id& projectId, const ports::CertificateFilter& f,
                   const std::string& extra = {}) {
  const Where w = whereFor(projectId, f);
  if (!f.expires_before && !f.name_contains && extra.empty()) {
    // Answered from the trigger-kept counts: no scan.
    return db.exec(q("SELECT COALESCE(SUM(n), 0) FROM certificate_counts WHERE " + w.sql), w.params)
        .integer(0, 0);
  }
  return db.exec(q("SELECT COUNT(*) FROM certificates WHERE " + w.sql + extra), w.params)
      .integer(0, 0);
}

void appendRange(PgDatabase& db, const domain::Id& projectId, const ports::CertificateFilter& f,
                 const std::string& extraWhere, const std::string& order, std::int64_t limit,
                 std::int64_t offset, std::vector<Certificate>& out) {
  if (limit <= 0) return;
  Where w = whereFor(projectId, f);
  w.params.push_back(p(limit));
  w.params.push_back(p(offset));
  const auto rows =
      db.exec(q("SELECT c.doc FROM unnest(ARRAY(SELECT id FROM certificates WHERE " + w.sql +
                extraWhere + " ORDER BY " + order +
                " LIMIT ? OFFSET ?)) WITH ORDINALITY AS page(id, n) JOIN certificates c ON c.id = "
                "page.id ORDER BY page.n"),
              w.params);
  for (auto& c : documents<Certificate>(rows))
    out.push_back(std::move(c));
}

std::vector<Certificate> select(PgDatabase& db, std::string_view sql,
                                const std::vector<Param>& params) {
  return documents<Certificate>(db.exec(q(sql), params));
}

}  // namespace

domain::Status PgCertificateRepository::create(const Certificate& cert) {
  return guarded([&]() -> domain::Status {
    std::vector<Param> params{p(cert.id), p(cert.project_id)};
    addColumns(params, cert, 1);
    auto written = uniqueWrite(
        db_,
        "INSERT INTO certificates (id, project_id, status, issuer_type, common_name, auto_renew, "
        "created_at, expires_at, next_renewal_at, distribution_pending, "
        "distribution_pending_since, ari_poll_at, version, doc, names) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        params);
    if (!written) return conflict("a certificate with this id exists");
    generations_.invalidate(cert.project_id);
    return {};
  });
}

domain::Result<Certificate> PgCertificateRepository::get(const domain::Id& projectId,
                                                         const domain::Id& id) const {
  return guarded([&]() -> domain::Result<Certificate> {
    auto rows = db_.exec(q("SELECT doc FROM certificates WHERE id = ? AND project_id = ?"),
                         {p(id), p(projectId)});
    if (rows.empty()) return certificateNotFound();
    return document<Certificate>(rows, 0, 0);
  });
}

domain::Result<domain::Page<Certificate>> PgCertificateRepository::list(
    const domain::Id& projectId, const ports::CertificateFilter& filter,
    const domain::PageRequest& request) const {
  return guarded([&]() -> domain::Result<domain::Page<Certificate>> {
    domain::Page<Certificate> page;
    page.page = request.page;
    page.page_size = request.page_size;
    auto read = db_.snapshot([&]() -> domain::Status {  // total and items from one snapshot
      page.items.clear();                               // afresh if the snapshot is run again
      page.total = count(db_, projectId, filter);
      const std::string dir = filter.order == domain::SortOrder::desc ? " DESC" : " ASC";
      const std::string column = ports::sortField(filter.sort);
      const std::string order = column + dir + ", id" + dir;
      const std::int64_t offset = request.offset();
      if (!ports::sortFieldMayBeMissing(filter)) {
        appendRange(db_, projectId, filter, "", order, request.page_size, offset, page.items);
        return {};
      }
      // Values first (an index range in the requested order), then the certificates without
      // one, in id order.
      const std::int64_t missing = count(db_, projectId, filter, " AND " + column + " IS NULL");
      const std::int64_t present = page.total - missing;
      appendRange(db_, projectId, filter, " AND " + column + " IS NOT NULL", order,
                  std::min(request.page_size, present - offset), offset, page.items);
      const std::int64_t stillWanted =
          request.page_size - static_cast<std::int64_t>(page.items.size());
      appendRange(db_, projectId, filter, " AND " + column + " IS NULL", "id" + dir, stillWanted,
                  std::max<std::int64_t>(0, offset - present), page.items);
      return {};
    });
    if (!read) return read.error();
    return page;
  });
}

domain::Result<Certificate> PgCertificateRepository::update(const Certificate& cert) {
  return guarded([&]() -> domain::Result<Certificate> {
    std::vector<Param> params;
    addColumns(params, cert, cert.version + 1);
    params.push_back(p(cert.id));
    params.push_back(p(cert.project_id));
    params.push_back(p(cert.version));
    // Compare and set: under READ COMMITTED a concurrent writer of the row makes this wait, and
    // the version is checked again on the row it committed.
    const auto changed =
        db_.exec(q("UPDATE certificates SET status = ?, issuer_type = ?, common_name = ?, "
                   "auto_renew = ?, created_at = ?, expires_at = ?, next_renewal_at = ?, "
                   "distribution_pending = ?, distribution_pending_since = ?, ari_poll_at = ?, "
                   "version = ?, doc = ?, names = ? WHERE id = ? AND project_id = ? AND "
                   "version = ?"),
                 params)
            .affected();
    if (changed == 1) {
      generations_.invalidate(cert.project_id);
      Certificate stored = cert;
      stored.version = cert.version + 1;
      return stored;
    }
    if (db_.exec(q("SELECT 1 FROM certificates WHERE id = ? AND project_id = ?"),
                 {p(cert.id), p(cert.project_id)})
            .empty()) {
      return certificateNotFound();
    }
    return domain::makeError(domain::ErrorCode::conflict,
                             "the certificate was changed concurrently; re-read and retry");
  });
}

domain::Status PgCertificateRepository::remove(const domain::Id& projectId, const domain::Id& id) {
  return guarded([&]() -> domain::Status {
    if (db_.exec(q("DELETE FROM certificates WHERE id = ? AND project_id = ?"),
                 {p(id), p(projectId)})
            .affected() == 0) {
      return certificateNotFound();
    }
    generations_.invalidate(projectId);
    return {};
  });
}

domain::Result<std::map<domain::CertificateStatus, std::int64_t>>
PgCertificateRepository::countByStatus() const {
  return guarded([&]() -> domain::Result<std::map<domain::CertificateStatus, std::int64_t>> {
    const auto rows =
        db_.exec("SELECT status, SUM(n) FROM certificate_counts GROUP BY status HAVING SUM(n) > 0");
    std::map<domain::CertificateStatus, std::int64_t> counts;
    for (int i = 0; i < rows.size(); ++i) {
      if (auto status = domain::parseCertificateStatus(rows.text(i, 0))) {
        counts[*status] = rows.integer(i, 1);
      }
    }
    return counts;
  });
}

domain::Result<std::int64_t> PgCertificateRepository::countMatching(
    const domain::Id& projectId, const ports::CertificateFilter& filter) const {
  return guarded([&]() -> domain::Result<std::int64_t> { return count(db_, projectId, filter); });
}

domain::Result<std::int64_t> PgCertificateRepository::countAll() const {
  return guarded([&]() -> domain::Result<std::int64_t> {
    return db_.exec("SELECT COALESCE(SUM(n), 0) FROM certificate_counts").integer(0, 0);
  });
}

domain::Result<std::int64_t> PgCertificateRepository::countExpiringBefore(
    domain::Timestamp before) const {
  return guarded([&]() -> domain::Result<std::int64_t> {
    return db_
        .exec(q("SELECT COUNT(*) FROM certificates WHERE expires_at IS NOT NULL AND "
                "expires_at < ?"),
              {p(before)})
        .integer(0, 0);
  });
}

domain::Result<std::int64_t> PgCertificateRepository::generation(
    const domain::Id& projectId) const {
  if (auto known = generations_.find(projectId)) return *known;
  const auto ticket = generations_.ticket();
  return guarded([&]() -> domain::Result<std::int64_t> {
    const auto rows = db_.exec(
        q("SELECT generation FROM certificate_generations WHERE project_id = ?"), {p(projectId)});
    const std::int64_t generation = rows.empty() ? 0 : rows.integer(0, 0);
    generations_.remember(projectId, generation, ticket);
    return generation;
  });
}

domain::Result<std::vector<Certificate>> PgCertificateRepository::dueForRenewal(
    domain::Timestamp now, std::int64_t limit) const {
  return guarded([&]() -> domain::Result<std::vector<Certificate>> {
    // The WHERE repeats the partial index's condition so the planner uses it.
    return select(db_,
                  "SELECT doc FROM certificates WHERE auto_renew AND status IN ('active', "
                  "'renewal_failed') AND next_renewal_at <= ? ORDER BY next_renewal_at, id "
                  "LIMIT ?",
                  {p(now), p(limit)});
  });
}

domain::Result<std::vector<Certificate>> PgCertificateRepository::dueForRenewalInfo(
    domain::Timestamp now, std::int64_t limit) const {
  return guarded([&]() -> domain::Result<std::vector<Certificate>> {
    return select(db_,
                  "SELECT doc FROM certificates WHERE ari_poll_at IS NOT NULL AND ari_poll_at <= "
                  "? ORDER BY ari_poll_at, id LIMIT ?",
                  {p(now), p(limit)});
  });
}

domain::Result<std::vector<Certificate>> PgCertificateRepository::distributionPendingSince(
    domain::Timestamp before, std::int64_t limit) const {
  return guarded([&]() -> domain::Result<std::vector<Certificate>> {
    return select(db_,
                  "SELECT doc FROM certificates WHERE distribution_pending AND "
                  "distribution_pending_since < ? ORDER BY distribution_pending_since, id LIMIT ?",
                  {p(before), p(limit)});
  });
}

}  // namespace certsteward::adapters::postgres
