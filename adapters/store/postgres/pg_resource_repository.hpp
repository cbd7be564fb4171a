// PgResourceRepository<Port, T>: every ProjectScopedRepository port in one `resources` table
// keyed by (kind, id), with optional indexed `ref` and `ref2` columns for the extra lookups a
// kind needs. Each write is one statement. Thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/adapters/store/postgres/pg_documents.hpp>
#include <certsteward/ports/distribution_repository.hpp>
#include <certsteward/ports/notification_delivery_repository.hpp>
#include <certsteward/ports/notification_rule_repository.hpp>
#include <certsteward/ports/notification_state_repository.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>
#include <certsteward/ports/zone_repository.hpp>

namespace certsteward::adapters::postgres {

template <class Port, class T>
class PgResourceRepository : public Port {
 public:
  using RefOf = std::optional<std::string> (*)(const T&);

  // refOf, ref2Of: the entity's lookup keys (null: the kind has none; nullopt: this entity has
  // none — `ref2` is indexed only where it is set).
  PgResourceRepository(PgDatabase& db, std::string kind, RefOf refOf = nullptr,
                       RefOf ref2Of = nullptr)
      : db_(db), kind_(std::move(kind)), ref_(refOf), ref2_(ref2Of) {}

  domain::Status create(const T& e) override {
    return guarded([&]() -> domain::Status {
      const auto written = uniqueWrite(
          db_,
          "INSERT INTO resources (kind, id, project_id, ref, ref2, doc) VALUES (?, ?, ?, ?, ?, ?)",
          {p(kind_), p(e.id), p(e.project_id), p(ref(e)), p(ref2(e)), p(codec::encode(e))});
      if (!written) return conflict("already exists");
      return {};
    });
  }

  domain::Result<T> get(const domain::Id& projectId, const domain::Id& id) const override {
    return guarded([&]() -> domain::Result<T> {
      const auto rows =
          db_.exec(q("SELECT doc FROM resources WHERE kind = ? AND id = ? AND project_id = ?"),
                   {p(kind_), p(id), p(projectId)});
      if (rows.empty()) return notFound();
      return document<T>(rows, 0, 0);
    });
  }

  domain::Result<domain::Page<T>> list(const domain::Id& projectId,
                                       const domain::PageRequest& request) const override {
    return guarded([&]() -> domain::Result<domain::Page<T>> {
      return pageOf<T>(db_, "SELECT COUNT(*) FROM resources WHERE kind = ? AND project_id = ?",
                       "SELECT doc FROM resources WHERE kind = ? AND project_id = ? ORDER BY id "
                       "LIMIT ? OFFSET ?",
                       {p(kind_), p(projectId)}, request);
    });
  }

  domain::Status update(const T& e) override {
    return guarded([&]() -> domain::Status {
      if (db_.exec(q("UPDATE resources SET ref = ?, ref2 = ?, doc = ? WHERE kind = ? AND id = ? "
                     "AND project_id = ?"),
                   {p(ref(e)), p(ref2(e)), p(codec::encode(e)), p(kind_), p(e.id), p(e.project_id)})
              .affected() == 0) {
        return notFound();
      }
      return {};
    });
  }

  domain::Status remove(const domain::Id& projectId, const domain::Id& id) override {
    return guarded([&]() -> domain::Status {
      if (db_.exec(q("DELETE FROM resources WHERE kind = ? AND id = ? AND project_id = ?"),
                   {p(kind_), p(id), p(projectId)})
              .affected() == 0) {
        return notFound();
      }
      return {};
    });
  }

 protected:
  // Every entity of the project whose ref equals `value` (all of the project's when nullopt).
  domain::Result<std::vector<T>> byRef(const domain::Id& projectId,
                                       const std::optional<std::string>& value) const {
    return guarded([&]() -> domain::Result<std::vector<T>> {
      if (!value) {
        return documents<T>(
            db_.exec(q("SELECT doc FROM resources WHERE kind = ? AND project_id = ? ORDER BY id"),
                     {p(kind_), p(projectId)}));
      }
      return documents<T>(db_.exec(
          q("SELECT doc FROM resources WHERE kind = ? AND project_id = ? AND ref = ? ORDER BY id"),
          {p(kind_), p(projectId), p(*value)}));
    });
  }

  // One page of the project's entities whose ref equals `value`, newest first (by id).
  domain::Result<domain::Page<T>> pageByRefNewestFirst(const domain::Id& projectId,
                                                       const std::string& value,
                                                       const domain::PageRequest& request) const {
    return guarded([&]() -> domain::Result<domain::Page<T>> {
      return pageOf<T>(
          db_, "SELECT COUNT(*) FROM resources WHERE kind = ? AND project_id = ? AND ref = ?",
          "SELECT doc FROM resources WHERE kind = ? AND project_id = ? AND ref = ? ORDER BY id "
          "DESC LIMIT ? OFFSET ?",
          {p(kind_), p(projectId), p(value)}, request);
    });
  }

  // The project's first `limit` entities (by id) whose ref2 equals `value`.
  domain::Result<std::vector<T>> byRef2(const domain::Id& projectId, const std::string& value,
                                        std::int64_t limit) const {
    return guarded([&]() -> domain::Result<std::vector<T>> {
      return documents<T>(db_.exec(q("SELECT doc FROM resources WHERE kind = ? AND project_id = "
                                     "? AND ref2 = ? ORDER BY id LIMIT ?"),
                                   {p(kind_), p(projectId), p(value), p(limit)}));
    });
  }

 private:
  std::optional<std::string> ref(const T& e) const { return ref_ ? ref_(e) : std::nullopt; }
  std::optional<std::string> ref2(const T& e) const { return ref2_ ? ref2_(e) : std::nullopt; }
  static domain::Error notFound() {
    return domain::makeError(domain::ErrorCode::not_found, "not found");
  }

  PgDatabase& db_;
  std::string kind_;
  RefOf ref_;
  RefOf ref2_;
};

class PgZoneRepository : public PgResourceRepository<ports::ZoneRepository, domain::Zone> {
 public:
  explicit PgZoneRepository(PgDatabase& db);
  domain::Result<std::optional<domain::Zone>> findForName(const domain::Id& projectId,
                                                          const std::string& name) const override;
};

class PgDistributionRepository
    : public PgResourceRepository<ports::DistributionRepository, domain::Distribution> {
 public:
  explicit PgDistributionRepository(PgDatabase& db);
  domain::Result<std::vector<domain::Distribution>> listForCertificate(
      const domain::Id& projectId, const domain::Id& certificateId) const override;
};

class PgNotificationRuleRepository
    : public PgResourceRepository<ports::NotificationRuleRepository, domain::NotificationRule> {
 public:
  explicit PgNotificationRuleRepository(PgDatabase& db);
  domain::Result<std::vector<domain::NotificationRule>> matching(
      const domain::Id& projectId, domain::EventKind kind) const override;
};

// ref: the channel (listForChannel); ref2: the rule, while the delivery is held (heldForRule).
class PgNotificationDeliveryRepository
    : public PgResourceRepository<ports::NotificationDeliveryRepository,
                                  domain::NotificationDelivery> {
 public:
  explicit PgNotificationDeliveryRepository(PgDatabase& db);
  domain::Result<domain::Page<domain::NotificationDelivery>> listForChannel(
      const domain::Id& projectId, const domain::Id& channelId,
      const domain::PageRequest& page) const override;
  domain::Result<std::vector<domain::NotificationDelivery>> heldForRule(
      const domain::Id& projectId, const domain::Id& ruleId, std::int64_t limit) const override;
};

// ref: "<rule id>/<subject>".
class PgNotificationStateRepository
    : public PgResourceRepository<ports::NotificationStateRepository, domain::NotificationState> {
 public:
  explicit PgNotificationStateRepository(PgDatabase& db);
  domain::Result<std::optional<domain::NotificationState>> find(
      const domain::Id& projectId, const domain::Id& ruleId,
      const domain::Id& subject) const override;
};

}  // namespace certsteward::adapters::postgres
