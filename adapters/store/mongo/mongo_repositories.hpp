// The MongoDB repositories. Every read-modify-write is a compare-and-set on a revision (jobs),
// a version (certificates) or a single atomic findAndModify, so it holds across instances.
// Thread-safe: each call borrows a pooled client.
#pragma once

#include <string>

#include "adapters/common/generation_memo.hpp"
#include "adapters/store/mongo/mongo_database.hpp"
#include "ports/store.hpp"

namespace certsteward::adapters::mongo {

class MongoCertificateRepository : public ports::CertificateRepository {
 public:
  explicit MongoCertificateRepository(MongoDatabase& db) : db_(db) {}
  domain::Status create(const domain::Certificate& cert) override;
  domain::Result<domain::Certificate> get(const domain::Id& projectId,
                                          const domain::Id& id) const override;
  domain::Result<domain::Page<domain::Certificate>> list(
      const domain::Id& projectId, const ports::CertificateFilter& filter,
      const domain::PageRequest& page) const override;
  domain::Result<domain::Certificate> update(const domain::Certificate& cert) override;
  domain::Status remove(const domain::Id& projectId, const domain::Id& id) override;
  domain::Result<std::map<domain::CertificateStatus, std::int64_t>> countByStatus() const override;
  domain::Result<std::int64_t> countMatching(const domain::Id& projectId,
                                             const ports::CertificateFilter& filter) const override;
  domain::Result<std::int64_t> countAll() const override;
  domain::Result<std::int64_t> countExpiringBefore(domain::Timestamp before) const override;
  // A counter document per project, incremented right after each certificate write.
  domain::Result<std::int64_t> generation(const domain::Id& projectId) const override;
  domain::Result<std::vector<domain::Certificate>> dueForRenewal(domain::Timestamp now,
                                                                 std::int64_t limit) const override;
  domain::Result<std::vector<domain::Certificate>> distributionPendingSince(
      domain::Timestamp before, std::int64_t limit) const override;

 private:
  MongoDatabase& db_;
  // Generations are remembered for 100 ms; this repository's own writes invalidate at once.
  mutable common::GenerationMemo generations_;
};

class MongoJobQueue : public ports::JobQueue {
 public:
  explicit MongoJobQueue(MongoDatabase& db) : db_(db) {}
  domain::Result<ports::EnqueueResult> enqueue(const domain::Job& job) override;
  domain::Result<domain::Job> get(const domain::Id& projectId, const domain::Id& id) const override;
  domain::Result<domain::Page<domain::Job>> list(const domain::Id& projectId,
                                                 const ports::JobFilter& filter,
                                                 const domain::PageRequest& page) const override;
  domain::Result<std::map<std::pair<domain::JobType, domain::JobStatus>, std::int64_t>>
  countByTypeAndStatus() const override;
  domain::Result<ports::ClaimResult> claim(domain::Lane lane,
                                           const domain::JobContext& ctx) override;
  domain::Result<ports::JobUpdate> apply(const domain::Id& id, domain::JobEvent event,
                                         const domain::JobContext& ctx) override;

 private:
  MongoDatabase& db_;
};

class MongoJobLogRepository : public ports::JobLogRepository {
 public:
  explicit MongoJobLogRepository(MongoDatabase& db) : db_(db) {}
  domain::Status append(const domain::JobLogEntry& entry) override;
  domain::Result<domain::Page<domain::JobLogEntry>> list(
      const domain::Id& jobId, const domain::PageRequest& page) const override;

 private:
  MongoDatabase& db_;
};

class MongoEventLog : public ports::EventLog {
 public:
  explicit MongoEventLog(MongoDatabase& db) : db_(db) {}
  domain::Status record(const domain::Event& event) override;
  domain::Result<domain::Page<domain::Event>> list(const domain::Id& projectId,
                                                   const domain::PageRequest& page) const override;
  domain::Result<domain::Page<domain::Event>> listInOrder(
      const domain::Id& projectId, const domain::PageRequest& page) const override;

 private:
  domain::Result<domain::Page<domain::Event>> read(const domain::Id& projectId,
                                                   const domain::PageRequest& page,
                                                   bool inOrder) const;
  MongoDatabase& db_;
};

class MongoProjectRepository : public ports::ProjectRepository {
 public:
  explicit MongoProjectRepository(MongoDatabase& db) : db_(db) {}
  domain::Status create(const domain::Project& project) override;
  domain::Result<domain::Project> get(const domain::Id& id) const override;
  domain::Result<domain::Page<domain::Project>> list(
      const domain::PageRequest& page,
      const std::optional<std::vector<domain::Id>>& only) const override;
  domain::Status update(const domain::Project& project) override;
  domain::Status remove(const domain::Id& id) override;

 private:
  MongoDatabase& db_;
};

class MongoUserRepository : public ports::UserRepository {
 public:
  explicit MongoUserRepository(MongoDatabase& db) : db_(db) {}
  domain::Status create(const domain::User& user) override;
  domain::Result<domain::User> get(const domain::Id& id) const override;
  domain::Result<domain::User> getByUsername(const std::string& username) const override;
  domain::Result<domain::Page<domain::User>> list(const domain::PageRequest& page) const override;
  domain::Status update(const domain::User& user) override;
  domain::Status remove(const domain::Id& id) override;
  domain::Result<std::int64_t> count() const override;

 private:
  MongoDatabase& db_;
};

class MongoMembershipRepository : public ports::MembershipRepository {
 public:
  explicit MongoMembershipRepository(MongoDatabase& db) : db_(db) {}
  domain::Status put(const domain::Membership& membership) override;
  domain::Result<domain::Membership> get(const domain::Id& projectId,
                                         const domain::Id& userId) const override;
  domain::Status remove(const domain::Id& projectId, const domain::Id& userId) override;
  domain::Result<domain::Page<domain::Membership>> listForProject(
      const domain::Id& projectId, const domain::PageRequest& page) const override;
  domain::Result<std::vector<domain::Membership>> listForUser(
      const domain::Id& userId) const override;

 private:
  MongoDatabase& db_;
};

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

class MongoZoneRepository : public MongoResourceRepository<ports::ZoneRepository, domain::Zone> {
 public:
  explicit MongoZoneRepository(MongoDatabase& db);
  domain::Result<std::optional<domain::Zone>> findForName(const domain::Id& projectId,
                                                          const std::string& name) const override;
};

class MongoDistributionRepository
    : public MongoResourceRepository<ports::DistributionRepository, domain::Distribution> {
 public:
  explicit MongoDistributionRepository(MongoDatabase& db);
  domain::Result<std::vector<domain::Distribution>> listForCertificate(
      const domain::Id& projectId, const domain::Id& certificateId) const override;
};

class MongoNotificationRuleRepository
    : public MongoResourceRepository<ports::NotificationRuleRepository, domain::NotificationRule> {
 public:
  explicit MongoNotificationRuleRepository(MongoDatabase& db);
  domain::Result<std::vector<domain::NotificationRule>> matching(
      const domain::Id& projectId, domain::EventKind kind) const override;
};

// ref: the channel (listForChannel); ref2: the rule, while the delivery is held (heldForRule).
class MongoNotificationDeliveryRepository
    : public MongoResourceRepository<ports::NotificationDeliveryRepository,
                                     domain::NotificationDelivery> {
 public:
  explicit MongoNotificationDeliveryRepository(MongoDatabase& db);
  domain::Result<domain::Page<domain::NotificationDelivery>> listForChannel(
      const domain::Id& projectId, const domain::Id& channelId,
      const domain::PageRequest& page) const override;
  domain::Result<std::vector<domain::NotificationDelivery>> heldForRule(
      const domain::Id& projectId, const domain::Id& ruleId, std::int64_t limit) const override;
};

// ref: "<rule id>/<subject>".
class MongoNotificationStateRepository
    : public MongoResourceRepository<ports::NotificationStateRepository,
                                     domain::NotificationState> {
 public:
  explicit MongoNotificationStateRepository(MongoDatabase& db);
  domain::Result<std::optional<domain::NotificationState>> find(
      const domain::Id& projectId, const domain::Id& ruleId,
      const domain::Id& subject) const override;
};

class MongoAuditLog : public ports::AuditLog {
 public:
  explicit MongoAuditLog(MongoDatabase& db) : db_(db) {}
  domain::Result<domain::AuditEntry> append(const domain::AuditEntry& draft,
                                            const domain::AuditChainSealer& sealer) override;
  domain::Result<domain::AuditEntry> get(const domain::Id& id) const override;
  domain::Result<domain::Page<domain::AuditEntry>> list(
      const ports::AuditFilter& filter, const domain::PageRequest& page) const override;
  domain::Result<ports::AuditChainPage> chainPage(std::optional<domain::Timestamp> since,
                                                  std::int64_t limit) const override;
  domain::Result<std::optional<domain::AuditEntry>> head() const override;
  domain::Result<std::optional<domain::AuditEntry>> atSequence(
      std::int64_t sequence) const override;
  void tamperForTest(const domain::AuditEntry& entry);

 private:
  MongoDatabase& db_;
};

class MongoLicenseRepository : public ports::LicenseRepository {
 public:
  explicit MongoLicenseRepository(MongoDatabase& db) : db_(db) {}
  domain::Result<std::optional<domain::License>> get() const override;
  domain::Status put(const domain::License& license) override;

 private:
  MongoDatabase& db_;
};

class MongoRefreshTokenStore : public ports::RefreshTokenStore {
 public:
  explicit MongoRefreshTokenStore(MongoDatabase& db) : db_(db) {}
  domain::Status issue(const domain::RefreshToken& token) override;
  domain::Result<domain::RefreshToken> consume(const std::string& tokenId,
                                               domain::Timestamp now) override;
  domain::Status revokeFamily(const domain::Id& familyId) override;
  domain::Status revokeUser(const domain::Id& userId) override;

 private:
  MongoDatabase& db_;
};

class MongoIdempotencyStore : public ports::IdempotencyStore {
 public:
  explicit MongoIdempotencyStore(MongoDatabase& db) : db_(db) {}
  domain::Result<std::optional<domain::IdempotencyRecord>> find(
      const std::string& key, domain::Timestamp now) const override;
  domain::Status save(const domain::IdempotencyRecord& record, domain::Timestamp now) override;

 private:
  MongoDatabase& db_;
};

class MongoRateLimitCounter : public ports::RateLimitCounter {
 public:
  explicit MongoRateLimitCounter(MongoDatabase& db) : db_(db) {}
  domain::Result<std::int64_t> hit(const std::string& bucket, domain::Duration window,
                                   domain::Timestamp now) override;

 private:
  MongoDatabase& db_;
};

class MongoCaActivityLog : public ports::CaActivityLog {
 public:
  explicit MongoCaActivityLog(MongoDatabase& db) : db_(db) {}
  domain::Status record(const domain::CaActivity& activity) override;
  domain::Result<std::int64_t> count(const std::string& directoryUrl,
                                     const std::string& registeredDomain,
                                     domain::CaActivityKind kind,
                                     domain::Timestamp since) const override;
  domain::Result<std::optional<domain::CaActivity>> latest(
      const std::string& directoryUrl, const std::string& registeredDomain,
      domain::CaActivityKind kind) const override;
  domain::Result<std::optional<domain::CaActivity>> activeHold(
      const std::string& directoryUrl, const std::string& registeredDomain,
      const domain::Id& accountId, domain::Timestamp now) const override;

 private:
  MongoDatabase& db_;
};

class MongoLeaderLock : public ports::LeaderLock {
 public:
  explicit MongoLeaderLock(MongoDatabase& db) : db_(db) {}
  domain::Result<bool> tryAcquire(const std::string& name, const std::string& holder,
                                  domain::Timestamp now, domain::Duration ttl) override;
  domain::Status release(const std::string& name, const std::string& holder) override;
  domain::Result<std::optional<std::string>> holder(const std::string& name,
                                                    domain::Timestamp now) const override;

 private:
  MongoDatabase& db_;
};

class MongoSettingsRepository : public ports::SettingsRepository {
 public:
  explicit MongoSettingsRepository(MongoDatabase& db) : db_(db) {}
  domain::Result<std::optional<domain::Setting>> get(const std::string& key) const override;
  domain::Status put(const domain::Setting& setting) override;

 private:
  MongoDatabase& db_;
};

}  // namespace certsteward::adapters::mongo
