// mongo-c-driver glue: pool, BSON building, collection operations, error translation.
#include <certsteward/adapters/store/mongo/mongo_database.hpp>

#include <openssl/sha.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <random>
#include <thread>

namespace certsteward::adapters::mongo {
namespace {

// The driver's log goes to spdlog; its monitoring chatter stays at debug.
void logHandler(mongoc_log_level_t level, const char* domain, const char* message, void*) {
  switch (level) {
    case MONGOC_LOG_LEVEL_ERROR:
    case MONGOC_LOG_LEVEL_CRITICAL:
      spdlog::error("mongoc {}: {}", domain, message);
      break;
    case MONGOC_LOG_LEVEL_WARNING:
      spdlog::warn("mongoc {}: {}", domain, message);
      break;
    default:
      spdlog::debug("mongoc {}: {}", domain, message);
      break;
  }
}

std::once_flag gInit;

// The transaction the calling thread is inside (MongoDatabase::transact), if any.
struct ActiveTransaction {
  const MongoDatabase* db = nullptr;
  mongoc_client_t* client = nullptr;
  mongoc_client_session_t* session = nullptr;
};
thread_local ActiveTransaction tActive;

void initDriver() {
  std::call_once(gInit, [] {
    // The handler first: mongoc_init itself may warn (no shared memory for its counters on a
    // busy machine), and that line must reach the server's log in its format, not stderr.
    mongoc_log_set_handler(logHandler, nullptr);
    mongoc_init();
  });
}

}  // namespace

void raise(const bson_error_t& error) {
  throw MongoError(error.domain, error.code, error.message);
}

Bson Bson::fromJson(std::string_view json) {
  bson_error_t error;
  bson_t* b = bson_new_from_json(reinterpret_cast<const uint8_t*>(json.data()),
                                 static_cast<ssize_t>(json.size()), &error);
  if (b == nullptr) raise(error);
  return Bson(b);
}

Bson& Bson::str(const char* key, std::string_view v) {
  bson_append_utf8(b_, key, -1, v.data(), static_cast<int>(v.size()));
  return *this;
}
Bson& Bson::i64(const char* key, std::int64_t v) {
  bson_append_int64(b_, key, -1, v);
  return *this;
}
Bson& Bson::date(const char* key, domain::Timestamp t) {
  bson_append_date_time(b_, key, -1, t.time_since_epoch().count());
  return *this;
}
Bson& Bson::boolean(const char* key, bool v) {
  bson_append_bool(b_, key, -1, v);
  return *this;
}
Bson& Bson::null(const char* key) {
  bson_append_null(b_, key, -1);
  return *this;
}
Bson& Bson::oid(const char* key, const bson_oid_t& v) {
  bson_append_oid(b_, key, -1, &v);
  return *this;
}
Bson& Bson::doc(const char* key, const Bson& v) {
  bson_append_document(b_, key, -1, v.get());
  return *this;
}
Bson& Bson::strings(const char* key, const std::vector<std::string>& values) {
  bson_t array;
  bson_append_array_begin(b_, key, -1, &array);
  for (std::size_t i = 0; i < values.size(); ++i) {
    const std::string index = std::to_string(i);
    bson_append_utf8(&array, index.c_str(), -1, values[i].data(),
                     static_cast<int>(values[i].size()));
  }
  bson_append_array_end(b_, &array);
  return *this;
}

bson_oid_t idOid(std::string_view id) {
  bson_oid_t oid;
  const std::string text(id);
  if (bson_oid_is_valid(text.c_str(), text.size()) && text.size() == 24) {
    bson_oid_init_from_string(&oid, text.c_str());
  } else {
    oid = keyOid(id);
  }
  return oid;
}

bson_oid_t keyOid(std::string_view naturalKey) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(naturalKey.data()), naturalKey.size(), digest);
  bson_oid_t oid;
  bson_oid_init_from_data(&oid, digest);  // the first 12 bytes
  return oid;
}

std::string toJson(const bson_t* doc) {
  std::size_t length = 0;
  char* json = bson_as_relaxed_extended_json(doc, &length);
  std::string out(json, length);
  bson_free(json);
  return out;
}

Client::Client(mongoc_client_pool_t* pool, std::string db)
    : pool_(pool), client_(mongoc_client_pool_pop(pool)), db_(std::move(db)) {}

Client::Client(mongoc_client_t* borrowed, mongoc_client_session_t* session, std::string db)
    : pool_(nullptr), client_(borrowed), session_(session), db_(std::move(db)) {}

Client::~Client() {
  for (auto* c : open_)
    mongoc_collection_destroy(c);
  if (pool_ != nullptr) mongoc_client_pool_push(pool_, client_);
}

Bson Client::withSession(const Bson* base) const {
  Bson opts;
  if (base != nullptr) bson_copy_to_excluding_noinit(base->get(), opts.get(), "", nullptr);
  if (session_ != nullptr) {
    bson_error_t error;
    if (!mongoc_client_session_append(session_, opts.get(), &error)) raise(error);
  }
  return opts;
}

mongoc_collection_t* Client::collection(const char* name) {
  auto* c = mongoc_client_get_collection(client_, db_.c_str(), name);
  open_.push_back(c);
  return c;
}

std::optional<std::string> Client::findOne(const char* coll, const Bson& filter, const Bson& opts) {
  Bson limited;
  bson_copy_to_excluding_noinit(opts.get(), limited.get(), "limit", nullptr);
  limited.i64("limit", 1);
  auto results = find(coll, filter, limited);
  if (results.empty()) return std::nullopt;
  return std::move(results.front());
}

std::vector<std::string> Client::find(const char* coll, const Bson& filter, const Bson& opts) {
  const Bson withTxn = withSession(&opts);
  mongoc_cursor_t* cursor =
      mongoc_collection_find_with_opts(collection(coll), filter.get(), withTxn.get(), nullptr);
  std::vector<std::string> out;
  const bson_t* doc = nullptr;
  while (mongoc_cursor_next(cursor, &doc))
    out.push_back(toJson(doc));
  bson_error_t error;
  const bool failed = mongoc_cursor_error(cursor, &error);
  mongoc_cursor_destroy(cursor);
  if (failed) raise(error);
  return out;
}

std::int64_t Client::count(const char* coll, const Bson& filter) {
  bson_error_t error;
  const Bson opts = withSession(nullptr);
  const std::int64_t n = mongoc_collection_count_documents(collection(coll), filter.get(),
                                                           opts.get(), nullptr, nullptr, &error);
  if (n < 0) raise(error);
  return n;
}

void Client::insert(const char* coll, const Bson& doc) {
  bson_error_t error;
  const Bson opts = withSession(nullptr);
  if (!mongoc_collection_insert_one(collection(coll), doc.get(), opts.get(), nullptr, &error)) {
    raise(error);
  }
}

namespace {
std::int64_t matched(const bson_t& reply, const char* key = "matchedCount") {
  bson_iter_t it;
  if (bson_iter_init_find(&it, &reply, key)) return bson_iter_as_int64(&it);
  return 0;
}
}  // namespace

std::int64_t Client::replaceOne(const char* coll, const Bson& filter, const Bson& doc) {
  bson_t reply;
  bson_error_t error;
  const Bson opts = withSession(nullptr);
  const bool ok = mongoc_collection_replace_one(collection(coll), filter.get(), doc.get(),
                                                opts.get(), &reply, &error);
  const std::int64_t n = ok ? matched(reply) : 0;
  bson_destroy(&reply);
  if (!ok) raise(error);
  return n;
}

std::int64_t Client::updateOne(const char* coll, const Bson& filter, const Bson& update,
                               bool upsert) {
  Bson opts = withSession(nullptr);
  if (upsert) opts.boolean("upsert", true);
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_collection_update_one(collection(coll), filter.get(), update.get(),
                                               opts.get(), &reply, &error);
  const std::int64_t n = ok ? matched(reply) + matched(reply, "upsertedCount") : 0;
  bson_destroy(&reply);
  if (!ok) raise(error);
  return n;
}

std::int64_t Client::updateMany(const char* coll, const Bson& filter, const Bson& update) {
  bson_t reply;
  bson_error_t error;
  const Bson opts = withSession(nullptr);
  const bool ok = mongoc_collection_update_many(collection(coll), filter.get(), update.get(),
                                                opts.get(), &reply, &error);
  const std::int64_t n = ok ? matched(reply) : 0;
  bson_destroy(&reply);
  if (!ok) raise(error);
  return n;
}

std::int64_t Client::deleteMany(const char* coll, const Bson& filter) {
  bson_t reply;
  bson_error_t error;
  const Bson opts = withSession(nullptr);
  const bool ok =
      mongoc_collection_delete_many(collection(coll), filter.get(), opts.get(), &reply, &error);
  const std::int64_t n = ok ? matched(reply, "deletedCount") : 0;
  bson_destroy(&reply);
  if (!ok) raise(error);
  return n;
}

std::optional<std::string> Client::findAndModify(const char* coll, const Bson& filter,
                                                 const Bson& update, bool upsert, bool returnNew,
                                                 const Bson* sort) {
  mongoc_find_and_modify_opts_t* opts = mongoc_find_and_modify_opts_new();
  mongoc_find_and_modify_opts_set_update(opts, update.get());
  int flags = MONGOC_FIND_AND_MODIFY_NONE;
  if (upsert) flags |= MONGOC_FIND_AND_MODIFY_UPSERT;
  if (returnNew) flags |= MONGOC_FIND_AND_MODIFY_RETURN_NEW;
  mongoc_find_and_modify_opts_set_flags(opts, static_cast<mongoc_find_and_modify_flags_t>(flags));
  if (sort != nullptr) mongoc_find_and_modify_opts_set_sort(opts, sort->get());
  if (session_ != nullptr) {
    const Bson extra = withSession(nullptr);
    mongoc_find_and_modify_opts_append(opts, extra.get());
  }
  bson_t reply;
  bson_error_t error;
  const bool ok = mongoc_collection_find_and_modify_with_opts(collection(coll), filter.get(), opts,
                                                              &reply, &error);
  mongoc_find_and_modify_opts_destroy(opts);
  std::optional<std::string> out;
  if (ok) {
    bson_iter_t it;
    if (bson_iter_init_find(&it, &reply, "value") && BSON_ITER_HOLDS_DOCUMENT(&it)) {
      uint32_t len = 0;
      const uint8_t* data = nullptr;
      bson_iter_document(&it, &len, &data);
      bson_t value;
      if (bson_init_static(&value, data, len)) out = toJson(&value);
    }
  }
  bson_destroy(&reply);
  if (!ok) raise(error);
  return out;
}

std::vector<std::string> Client::aggregate(const char* coll, const std::string& pipelineJson) {
  Bson pipeline = Bson::fromJson("{\"pipeline\": " + pipelineJson + "}");
  const Bson opts = withSession(nullptr);
  mongoc_cursor_t* cursor = mongoc_collection_aggregate(collection(coll), MONGOC_QUERY_NONE,
                                                        pipeline.get(), opts.get(), nullptr);
  std::vector<std::string> out;
  const bson_t* doc = nullptr;
  while (mongoc_cursor_next(cursor, &doc))
    out.push_back(toJson(doc));
  bson_error_t error;
  const bool failed = mongoc_cursor_error(cursor, &error);
  mongoc_cursor_destroy(cursor);
  if (failed) raise(error);
  return out;
}

void Client::command(const Bson& cmd, Bson* reply) {
  bson_t out;
  bson_error_t error;
  const bool ok =
      mongoc_client_command_simple(client_, db_.c_str(), cmd.get(), nullptr, &out, &error);
  if (ok && reply != nullptr) {
    *reply = Bson(bson_copy(&out));
  }
  bson_destroy(&out);
  if (!ok) raise(error);
}

domain::Result<std::unique_ptr<MongoDatabase>> MongoDatabase::open(const std::string& text) {
  initDriver();
  bson_error_t error;
  mongoc_uri_t* uri = mongoc_uri_new_with_error(text.c_str(), &error);
  if (uri == nullptr) {
    return domain::makeError(domain::ErrorCode::invalid_argument,
                             std::string("invalid MongoDB URI: ") + error.message);
  }
  // Sane timeouts unless the URI sets its own: fail fast, report unavailable, recover later.
  const bson_t* options = mongoc_uri_get_options(uri);
  const auto unset = [&](const char* key) { return !bson_has_field(options, key); };
  if (unset("serverselectiontimeoutms")) {
    mongoc_uri_set_option_as_int32(uri, MONGOC_URI_SERVERSELECTIONTIMEOUTMS, 5000);
  }
  if (unset("connecttimeoutms"))
    mongoc_uri_set_option_as_int32(uri, MONGOC_URI_CONNECTTIMEOUTMS, 5000);
  if (unset("sockettimeoutms"))
    mongoc_uri_set_option_as_int32(uri, MONGOC_URI_SOCKETTIMEOUTMS, 30000);
  std::string db = mongoc_uri_get_database(uri) != nullptr ? mongoc_uri_get_database(uri) : "";
  if (db.empty()) db = "certsteward";
  mongoc_client_pool_t* pool = mongoc_client_pool_new(uri);
  mongoc_uri_destroy(uri);
  if (pool == nullptr) {
    return domain::makeError(domain::ErrorCode::invalid_argument, "invalid MongoDB URI");
  }
  mongoc_client_pool_set_error_api(pool, MONGOC_ERROR_API_VERSION_2);
  mongoc_client_pool_set_appname(pool, "certsteward");
  return std::unique_ptr<MongoDatabase>(new MongoDatabase(pool, std::move(db)));
}

MongoDatabase::~MongoDatabase() {
  mongoc_client_pool_destroy(pool_);
}

Client MongoDatabase::client() {
  if (tActive.db == this) return Client(tActive.client, tActive.session, db_);
  return Client(pool_, db_);
}

bool MongoDatabase::supportsTransactions() {
  const int known = transactions_.load();
  if (known >= 0) return known == 1;
  Client c(pool_, db_);
  Bson reply;
  c.command(Bson().i64("hello", 1), &reply);  // throws while unreachable: asked again next time
  const bool replicated = bson_has_field(reply.get(), "setName") ||
                          bson_has_field(reply.get(), "msg");  // "isdbgrid": a mongos
  transactions_.store(replicated ? 1 : 0);
  if (!replicated) {
    spdlog::warn(
        "MongoDB is not a replica set: multi-document transactions are not available, so a "
        "mutation, its jobs and its audit entry are written one after another");
  }
  return replicated;
}

namespace {

bool hasLabel(const bson_t* reply, const char* label) {
  return reply != nullptr && mongoc_error_has_label(reply, label);
}

// Waits before a transaction runs again after a conflict: 5 ms, 10 ms, 20 ms, ... with jitter,
// so conflicting writers (every mutation appends to the one audit chain) spread out.
void backoff(int attempt) {
  thread_local std::minstd_rand random(std::random_device{}());
  const int base = 5 << std::min(attempt, 6);
  std::this_thread::sleep_for(std::chrono::milliseconds(
      base / 2 + static_cast<int>(random() % static_cast<unsigned>(base))));
}

// Ends the thread's transaction scope, whatever happens.
struct ActiveScope {
  explicit ActiveScope(const ActiveTransaction& t) { tActive = t; }
  ~ActiveScope() { tActive = ActiveTransaction{}; }
};

}  // namespace

domain::Status MongoDatabase::transact(const std::vector<std::string>& guards,
                                       const std::function<domain::Status()>& body) {
  if (tActive.db == this) {
    // Nested: the outer transaction takes this call's guards too.
    return guarded([&]() -> domain::Status {
      for (const auto& guard : guards) {
        Client c(tActive.client, tActive.session, db_);
        c.updateOne("txn_guards", Bson().oid("_id", keyOid(guard)),
                    Bson().doc("$inc", Bson().i64("n", 1)), true);
      }
      return body();
    });
  }
  return guarded([&]() -> domain::Status {
    if (!supportsTransactions()) return body();
    mongoc_client_t* client = mongoc_client_pool_pop(pool_);
    struct Return {
      mongoc_client_pool_t* pool;
      mongoc_client_t* client;
      ~Return() { mongoc_client_pool_push(pool, client); }
    } giveBack{pool_, client};
    bson_error_t error;
    mongoc_client_session_t* session = mongoc_client_start_session(client, nullptr, &error);
    if (session == nullptr) raise(error);
    struct End {
      mongoc_client_session_t* s;
      ~End() { mongoc_client_session_destroy(s); }
    } end{session};

    mongoc_transaction_opt_t* txnOpts = mongoc_transaction_opts_new();
    mongoc_write_concern_t* wc = mongoc_write_concern_new();
    mongoc_write_concern_set_w(wc, MONGOC_WRITE_CONCERN_W_MAJORITY);
    mongoc_transaction_opts_set_write_concern(txnOpts, wc);
    mongoc_read_concern_t* rc = mongoc_read_concern_new();
    mongoc_read_concern_set_level(rc, MONGOC_READ_CONCERN_LEVEL_SNAPSHOT);
    mongoc_transaction_opts_set_read_concern(txnOpts, rc);
    struct Opts {
      mongoc_transaction_opt_t* t;
      mongoc_write_concern_t* w;
      mongoc_read_concern_t* r;
      ~Opts() {
        mongoc_transaction_opts_destroy(t);
        mongoc_write_concern_destroy(w);
        mongoc_read_concern_destroy(r);
      }
    } opts{txnOpts, wc, rc};

    constexpr int kAttempts = 8;
    for (int attempt = 1;; ++attempt) {
      if (!mongoc_client_session_start_transaction(session, txnOpts, &error)) raise(error);
      domain::Status result;
      {
        ActiveScope scope({this, client, session});
        try {
          for (const auto& guard : guards) {
            Client c(client, session, db_);
            c.updateOne("txn_guards", Bson().oid("_id", keyOid(guard)),
                        Bson().doc("$inc", Bson().i64("n", 1)), true);
          }
          result = body();
        } catch (const MongoError& e) {
          result = translate(e);
        }
      }
      if (!result) {
        bson_error_t ignored;
        mongoc_client_session_abort_transaction(session, &ignored);
        if (result.error().reason == kTransientTransaction && attempt < kAttempts) {
          backoff(attempt);
          continue;
        }
        return result;
      }
      // Commit; an unknown commit result is retried as the driver documents.
      for (int commits = 1;; ++commits) {
        bson_t reply;
        const bool ok = mongoc_client_session_commit_transaction(session, &reply, &error);
        const bool transient = !ok && hasLabel(&reply, "TransientTransactionError");
        const bool unknown = !ok && hasLabel(&reply, "UnknownTransactionCommitResult");
        bson_destroy(&reply);
        if (ok) return {};
        if (unknown && commits < kAttempts) continue;
        if (transient && attempt < kAttempts) {  // run the whole body again
          backoff(attempt);
          break;
        }
        raise(error);
      }
    }
  });
}

bool isDuplicateKey(const MongoError& e) {
  return e.code() == 11000 || e.code() == 11001;
}

domain::Error translate(const MongoError& e) {
  if (isDuplicateKey(e)) return domain::makeError(domain::ErrorCode::conflict, "already exists");
  // WriteConflict, SnapshotUnavailable, NoSuchTransaction: another transaction got there first.
  if (e.code() == 112 || e.code() == 246 || e.code() == 251) {
    return domain::makeError(domain::ErrorCode::unavailable,
                             "the database is busy with a conflicting change; try again",
                             kTransientTransaction);
  }
  if (e.errorDomain() == MONGOC_ERROR_SERVER_SELECTION || e.errorDomain() == MONGOC_ERROR_STREAM ||
      e.errorDomain() == MONGOC_ERROR_CLIENT) {
    return domain::makeError(domain::ErrorCode::unavailable,
                             std::string("the database is unreachable: ") + e.what());
  }
  return domain::makeError(domain::ErrorCode::internal, std::string("store error: ") + e.what());
}

}  // namespace certsteward::adapters::mongo
