// CA activity in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_ca_activity_log.hpp>

#include <certsteward/adapters/store/mongo/mongo_documents.hpp>

namespace certsteward::adapters::mongo {
namespace {
Bson caActivityFilter(const std::string& directoryUrl, const std::string& registeredDomain,
                      domain::CaActivityKind kind) {
  Bson filter;
  filter.str("directory_url", directoryUrl)
      .str("registered_domain", registeredDomain)
      .str("kind", domain::nameOf(kind));
  return filter;
}

domain::CaActivity activityOf(const Bson& doc, const std::string& directoryUrl,
                              const std::string& registeredDomain, domain::CaActivityKind kind) {
  domain::CaActivity a;
  bson_iter_t it;
  if (bson_iter_init_find(&it, doc.get(), "_id") && BSON_ITER_HOLDS_OID(&it)) {
    char hex[25];
    bson_oid_to_string(bson_iter_oid(&it), hex);
    a.id = hex;
  }
  a.directory_url = directoryUrl;
  a.registered_domain = registeredDomain;
  a.kind = kind;
  a.at = tsOf(intField(doc, "at").value_or(0));
  a.project_id = textField(doc, "project_id");
  a.account_id = textField(doc, "account_id");
  if (auto until = intField(doc, "retry_until")) a.retry_until = tsOf(*until);
  a.detail = textField(doc, "detail");
  return a;
}
}  // namespace

domain::Status MongoCaActivityLog::record(const domain::CaActivity& a) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    Bson doc;
    doc.oid("_id", idOid(a.id))
        .str("directory_url", a.directory_url)
        .str("registered_domain", a.registered_domain)
        .str("kind", domain::nameOf(a.kind))
        .ts("at", a.at)
        .str("project_id", a.project_id)
        .str("account_id", a.account_id)
        .str("detail", a.detail)
        .date("expire_at", a.at + domain::kCaActivityRetention);  // the TTL index drops it
    if (a.retry_until) {
      doc.ts("retry_until", *a.retry_until);
    } else {
      doc.null("retry_until");
    }
    c.insert("ca_activity", doc);
    return {};
  });
}

domain::Result<std::int64_t> MongoCaActivityLog::count(const std::string& directoryUrl,
                                                       const std::string& registeredDomain,
                                                       domain::CaActivityKind kind,
                                                       domain::Timestamp since) const {
  return guarded([&]() -> domain::Result<std::int64_t> {
    auto c = db_.client();
    Bson filter = caActivityFilter(directoryUrl, registeredDomain, kind);
    filter.doc("at", Bson().ts("$gte", since));
    return c.count("ca_activity", filter);
  });
}

domain::Result<std::optional<domain::CaActivity>> MongoCaActivityLog::latest(
    const std::string& directoryUrl, const std::string& registeredDomain,
    domain::CaActivityKind kind) const {
  return guarded([&]() -> domain::Result<std::optional<domain::CaActivity>> {
    auto c = db_.client();
    Bson opts;
    opts.doc("sort", Bson().i64("at", -1).i64("_id", -1));
    auto found =
        c.findOne("ca_activity", caActivityFilter(directoryUrl, registeredDomain, kind), opts);
    if (!found) return std::optional<domain::CaActivity>();
    return std::optional<domain::CaActivity>(
        activityOf(Bson::fromJson(*found), directoryUrl, registeredDomain, kind));
  });
}

domain::Result<std::optional<domain::CaActivity>> MongoCaActivityLog::activeHold(
    const std::string& directoryUrl, const std::string& registeredDomain,
    const domain::Id& accountId, domain::Timestamp now) const {
  return guarded([&]() -> domain::Result<std::optional<domain::CaActivity>> {
    auto c = db_.client();
    const auto kind = domain::CaActivityKind::rate_limited;
    Bson filter = caActivityFilter(directoryUrl, registeredDomain, kind);
    filter.str("account_id", accountId).doc("retry_until", Bson().ts("$gt", now));
    Bson opts;
    opts.doc("sort", Bson().i64("retry_until", -1).i64("_id", -1));
    auto found = c.findOne("ca_activity", filter, opts);
    if (!found) return std::optional<domain::CaActivity>();
    return std::optional<domain::CaActivity>(
        activityOf(Bson::fromJson(*found), directoryUrl, registeredDomain, kind));
  });
}

}  // namespace certsteward::adapters::mongo
