// The mongo-c-driver layer under the MongoDB store adapter: a client pool, a small BSON
// builder, collection operations that throw MongoError, and the translation of driver errors
// into domain errors. Included only by the adapter's own .cpp files.
#pragma once

#include <bson/bson.h>
#include <mongoc/mongoc.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <certsteward/adapters/store/codec/json_codec.hpp>
#include <certsteward/domain/result.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::mongo {

class MongoError : public std::runtime_error {
 public:
  MongoError(std::uint32_t domain, std::uint32_t code, const std::string& message)
      : std::runtime_error(message), domain_(domain), code_(code) {}
  std::uint32_t errorDomain() const noexcept { return domain_; }
  std::uint32_t code() const noexcept { return code_; }

 private:
  std::uint32_t domain_;
  std::uint32_t code_;
};

[[noreturn]] void raise(const bson_error_t& error);

// Owning bson_t with a fluent builder.
class Bson {
 public:
  Bson() : b_(bson_new()) {}
  explicit Bson(bson_t* adopt) : b_(adopt) {}
  ~Bson() {
    if (b_ != nullptr) bson_destroy(b_);
  }
  Bson(Bson&& o) noexcept : b_(o.b_) { o.b_ = nullptr; }
  Bson& operator=(Bson&& o) noexcept {
    std::swap(b_, o.b_);
    return *this;
  }
  Bson(const Bson&) = delete;
  Bson& operator=(const Bson&) = delete;

  // Parses JSON (the codec's output); throws MongoError on malformed input.
  static Bson fromJson(std::string_view json);

  Bson& str(const char* key, std::string_view v);
  Bson& i64(const char* key, std::int64_t v);
  Bson& ts(const char* key, domain::Timestamp t) { return i64(key, t.time_since_epoch().count()); }
  Bson& date(const char* key, domain::Timestamp t);  // a BSON date, for TTL indexes
  Bson& boolean(const char* key, bool v);
  Bson& null(const char* key);
  Bson& oid(const char* key, const bson_oid_t& v);
  Bson& doc(const char* key, const Bson& v);
  Bson& strings(const char* key, const std::vector<std::string>& values);  // an array

  const bson_t* get() const { return b_; }
  bson_t* get() { return b_; }

 private:
  bson_t* b_;
};

// The ObjectId of a domain id (24 hex); a hash-derived ObjectId for any other natural key, so a
// natural key maps to one `_id` and the primary key enforces its uniqueness.
bson_oid_t idOid(std::string_view id);
bson_oid_t keyOid(std::string_view naturalKey);

// Relaxed extended JSON of a document (what the codec reads; `_id` and other extra fields are
// ignored by it).
std::string toJson(const bson_t* doc);

// One pooled client for the duration of an operation. Inside MongoDatabase::transact on the
// calling thread it is the transaction's client, and every operation carries its session.
class Client {
 public:
  Client(mongoc_client_pool_t* pool, std::string db);
  // Borrows the client of a transaction; the pool gets it back when the transaction ends.
  Client(mongoc_client_t* borrowed, mongoc_client_session_t* session, std::string db);
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  mongoc_client_t* get() { return client_; }
  const std::string& dbName() const { return db_; }

  std::optional<std::string> findOne(const char* coll, const Bson& filter, const Bson& opts);
  std::vector<std::string> find(const char* coll, const Bson& filter, const Bson& opts);
  std::int64_t count(const char* coll, const Bson& filter);
  void insert(const char* coll, const Bson& doc);  // throws MongoError (11000 = duplicate key)
  // Matched count.
  std::int64_t replaceOne(const char* coll, const Bson& filter, const Bson& doc);
  std::int64_t updateOne(const char* coll, const Bson& filter, const Bson& update,
                         bool upsert = false);
  std::int64_t updateMany(const char* coll, const Bson& filter, const Bson& update);
  std::int64_t deleteMany(const char* coll, const Bson& filter);
  // Returns the document before (or after, with returnNew) the update, if one matched/was made.
  std::optional<std::string> findAndModify(const char* coll, const Bson& filter, const Bson& update,
                                           bool upsert, bool returnNew, const Bson* sort = nullptr);
  void command(const Bson& cmd, Bson* reply = nullptr);
  // Runs an aggregation pipeline given as JSON text; returns the result documents.
  std::vector<std::string> aggregate(const char* coll, const std::string& pipelineJson);

 private:
  mongoc_collection_t* collection(const char* name);
  // `base` plus the transaction's session, if any.
  Bson withSession(const Bson* base) const;

  mongoc_client_pool_t* pool_;  // null when borrowed
  mongoc_client_t* client_;
  mongoc_client_session_t* session_ = nullptr;
  std::string db_;
  std::vector<mongoc_collection_t*> open_;
};

// The pool, made from the URI. The database is the URI's path ("certsteward" when absent).
class MongoDatabase {
 public:
  static domain::Result<std::unique_ptr<MongoDatabase>> open(const std::string& uri);
  ~MongoDatabase();
  Client client();

  // Runs `body` in one multi-document transaction (snapshot read concern, majority writes):
  // every client() of this thread inside it joins. Each guard is an $inc of one document of the
  // `txn_guards` collection inside the transaction, so two transactions naming the same guard
  // conflict and one of them is run again. A write conflict or a transient commit error runs the
  // whole body again, up to 5 times. Without a replica set (a standalone server or the test
  // stand-in) MongoDB has no transactions: the body runs directly and a warning is logged once.
  domain::Status transact(const std::vector<std::string>& guards,
                          const std::function<domain::Status()>& body);

 private:
  MongoDatabase(mongoc_client_pool_t* pool, std::string db) : pool_(pool), db_(std::move(db)) {}
  bool supportsTransactions();

  mongoc_client_pool_t* pool_;
  std::string db_;
  std::atomic<int> transactions_{-1};  // -1 unknown, 0 no, 1 yes
};

bool isDuplicateKey(const MongoError& e);

// The reason of a domain error for a write conflict inside a transaction: transact() runs the
// body again.
inline constexpr const char* kTransientTransaction = "TRANSIENT_TRANSACTION";

// Translates a driver error: server selection, network and timeouts -> unavailable; duplicate
// key -> conflict; the rest -> internal. Messages carry the driver's text, never documents.
domain::Error translate(const MongoError& error);

template <class F>
auto guarded(F&& body) -> decltype(body()) {
  try {
    return body();
  } catch (const MongoError& e) {
    return translate(e);
  } catch (const std::bad_alloc&) {
    throw;
  } catch (const std::exception&) {
    return domain::makeError(domain::ErrorCode::internal, "store error");
  }
}

// Decodes a stored document with the codec; throws when it is corrupt.
template <class T>
T decodeOrThrow(const std::string& json) {
  auto decoded = codec::decode<T>(json);
  if (!decoded) throw MongoError(0, 0, "stored document is corrupt");
  return std::move(*decoded);
}

}  // namespace certsteward::adapters::mongo
