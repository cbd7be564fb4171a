// What the MongoDB repositories share.
#include <certsteward/adapters/store/mongo/mongo_documents.hpp>

namespace certsteward::adapters::mongo {

std::optional<std::int64_t> intField(const Bson& doc, const char* key) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, doc.get(), key) && !BSON_ITER_HOLDS_NULL(&it)) {
    return bson_iter_as_int64(&it);
  }
  return std::nullopt;
}

std::string textField(const Bson& doc, const char* key) {
  bson_iter_t it;
  if (bson_iter_init_find(&it, doc.get(), key) && BSON_ITER_HOLDS_UTF8(&it)) {
    return bson_iter_utf8(&it, nullptr);
  }
  return {};
}

bool boolField(const Bson& doc, const char* key) {
  bson_iter_t it;
  return bson_iter_init_find(&it, doc.get(), key) && BSON_ITER_HOLDS_BOOL(&it) &&
         bson_iter_bool(&it);
}

domain::Timestamp tsOf(std::int64_t millis) {
  return domain::Timestamp{domain::Duration{millis}};
}

domain::Error notFound(const char* what) {
  return domain::makeError(domain::ErrorCode::not_found, std::string(what) + " not found");
}

bool taken(Client& c, const char* coll, const char* field, const std::string& value,
           const domain::Id& id) {
  Bson filter;
  filter.str(field, value).doc("_id", Bson().oid("$ne", idOid(id)));
  return c.findOne(coll, filter, Bson()).has_value();
}

}  // namespace certsteward::adapters::mongo
