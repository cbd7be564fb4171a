// What the MongoDB repositories share: typed reads of a stored document's fields, an entity's
// document under its id, a page of a collection by id, and the uniqueness check before a write.
// Included only by the adapter's own .cpp files.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/domain/pagination.hpp>

namespace certsteward::adapters::mongo {

// The field as an integer; nullopt when it is missing or null.
std::optional<std::int64_t> intField(const Bson& doc, const char* key);
// The field's text; empty when it is missing or not a string.
std::string textField(const Bson& doc, const char* key);
// True only for a boolean field that is true.
bool boolField(const Bson& doc, const char* key);
// A stored instant (milliseconds since the epoch).
domain::Timestamp tsOf(std::int64_t millis);

// not_found, "<what> not found".
domain::Error notFound(const char* what);

// The codec's document of `e`, its `_id` the ObjectId of its id.
template <class T>
Bson entityDoc(const T& e) {
  Bson doc = Bson::fromJson(codec::encode(e));
  doc.oid("_id", idOid(e.id));
  return doc;
}

// One page of the documents of `coll` matching `filter`, by id.
template <class T>
domain::Page<T> pageOf(Client& c, const char* coll, const Bson& filter,
                       const domain::PageRequest& request) {
  domain::Page<T> page;
  page.page = request.page;
  page.page_size = request.page_size;
  page.total = c.count(coll, filter);
  Bson opts;
  opts.doc("sort", Bson().i64("id", 1))
      .i64("skip", request.offset())
      .i64("limit", request.page_size);
  for (const auto& json : c.find(coll, filter, opts))
    page.items.push_back(decodeOrThrow<T>(json));
  return page;
}

// True when another document (not `id`) has `field` == `value`. The unique index settles
// concurrent writers on a real MongoDB; this check gives the clear answer in the usual case.
bool taken(Client& c, const char* coll, const char* field, const std::string& value,
           const domain::Id& id);

}  // namespace certsteward::adapters::mongo
