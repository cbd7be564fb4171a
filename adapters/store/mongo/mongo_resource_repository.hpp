// MongoResourceRepository<Port, T>: the ProjectScopedRepository ports on MongoDB. Thread-safe:
// each call borrows a pooled client.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <certsteward/adapters/store/mongo/mongo_database.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>

namespace certsteward::adapters::mongo {

// Every ProjectScopedRepository port in one `resources` collection, tagged by kind, with
// optional `ref` and `ref2` fields for the extra lookups a kind needs.
template <class Port, class T>
class MongoResourceRepository : public Port {
 public:
  using RefOf = std::optional<std::string> (*)(const T&);
  // refOf, ref2Of: the entity's lookup keys (null: the kind has none; nullopt: this entity has
  // none — `ref2` is indexed only where it is set).
  MongoResourceRepository(MongoDatabase& db, std::string kind, RefOf refOf = nullptr,
                          RefOf ref2Of = nullptr)
      : db_(db), kind_(std::move(kind)), ref_(refOf), ref2_(ref2Of) {}

  domain::Status create(const T& e) override {
    return guarded([&]() -> domain::Status {
      auto c = db_.client();
      c.insert("resources", document(e));
      return {};
    });
  }

  domain::Result<T> get(const domain::Id& projectId, const domain::Id& id) const override {
    return guarded([&]() -> domain::Result<T> {
      auto c = db_.client();
      auto found = c.findOne("resources", scoped(projectId).oid("_id", idOid(id)), Bson());
      if (!found) return notFound();
      return decodeOrThrow<T>(*found);
    });
  }

  domain::Result<domain::Page<T>> list(const domain::Id& projectId,
                                       const domain::PageRequest& request) const override {
    return guarded([&]() -> domain::Result<domain::Page<T>> {
      auto c = db_.client();
      domain::Page<T> page;
      page.page = request.page;
      page.page_size = request.page_size;
      page.total = c.count("resources", scoped(projectId));
      Bson opts;
      opts.doc("sort", Bson().i64("id", 1))
          .i64("skip", request.offset())
          .i64("limit", request.page_size);
      for (const auto& json : c.find("resources", scoped(projectId), opts)) {
        page.items.push_back(decodeOrThrow<T>(json));
      }
      return page;
    });
  }

  domain::Status update(const T& e) override {
    return guarded([&]() -> domain::Status {
      auto c = db_.client();
      if (c.replaceOne("resources", scoped(e.project_id).oid("_id", idOid(e.id)), document(e)) ==
          0) {
        return notFound();
      }
      return {};
    });
  }

  domain::Status remove(const domain::Id& projectId, const domain::Id& id) override {
    return guarded([&]() -> domain::Status {
      auto c = db_.client();
      if (c.deleteMany("resources", scoped(projectId).oid("_id", idOid(id))) == 0) {
        return notFound();
      }
      return {};
    });
  }

 protected:
  domain::Result<std::vector<T>> byRef(const domain::Id& projectId,
                                       const std::optional<std::string>& value) const {
    return guarded([&]() -> domain::Result<std::vector<T>> {
      auto c = db_.client();
      Bson filter = scoped(projectId);
      if (value) filter.str("ref", *value);
      std::vector<T> out;
      for (const auto& json :
           c.find("resources", filter, Bson().doc("sort", Bson().i64("id", 1)))) {
        out.push_back(decodeOrThrow<T>(json));
      }
      return out;
    });
  }

  // One page of the project's entities whose ref equals `value`, newest first (by id).
  domain::Result<domain::Page<T>> pageByRefNewestFirst(const domain::Id& projectId,
                                                       const std::string& value,
                                                       const domain::PageRequest& request) const {
    return guarded([&]() -> domain::Result<domain::Page<T>> {
      auto c = db_.client();
      Bson filter = scoped(projectId);
      filter.str("ref", value);
      domain::Page<T> page;
      page.page = request.page;
      page.page_size = request.page_size;
      page.total = c.count("resources", filter);
      Bson opts;
      opts.doc("sort", Bson().i64("id", -1))
          .i64("skip", request.offset())
          .i64("limit", request.page_size);
      for (const auto& json : c.find("resources", filter, opts)) {
        page.items.push_back(decodeOrThrow<T>(json));
      }
      return page;
    });
  }

  // The project's first `limit` entities (by id) whose ref2 equals `value`.
  domain::Result<std::vector<T>> byRef2(const domain::Id& projectId, const std::string& value,
                                        std::int64_t limit) const {
    return guarded([&]() -> domain::Result<std::vector<T>> {
      std::vector<T> out;
      if (limit <= 0) return out;  // a limit of 0 means "no limit" to MongoDB
      auto c = db_.client();
      Bson filter = scoped(projectId);
      filter.str("ref2", value);
      Bson opts;
      opts.doc("sort", Bson().i64("id", 1)).i64("limit", limit);
      for (const auto& json : c.find("resources", filter, opts)) {
        out.push_back(decodeOrThrow<T>(json));
      }
      return out;
    });
  }

 private:
  Bson scoped(const domain::Id& projectId) const {
    Bson b;
    b.str("kind", kind_).str("project_id", projectId);
    return b;
  }
  Bson document(const T& e) const {
    Bson doc = Bson::fromJson(codec::encode(e));
    doc.oid("_id", idOid(e.id)).str("kind", kind_);
    if (auto r = ref_ ? ref_(e) : std::nullopt) doc.str("ref", *r);
    if (auto r = ref2_ ? ref2_(e) : std::nullopt) doc.str("ref2", *r);
    return doc;
  }
  static domain::Error notFound() {
    return domain::makeError(domain::ErrorCode::not_found, "not found");
  }

  MongoDatabase& db_;
  std::string kind_;
  RefOf ref_;
  RefOf ref2_;
};

}  // namespace certsteward::adapters::mongo
