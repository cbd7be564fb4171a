// SqliteResourceRepository<Port, T>: every ProjectScopedRepository port in one `resources`
// table keyed by (kind, id), with optional indexed `ref` and `ref2` columns for the extra
// lookups a kind needs. Thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include <certsteward/adapters/store/codec/json_codec.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_database.hpp>
#include <certsteward/ports/distribution_repository.hpp>
#include <certsteward/ports/notification_delivery_repository.hpp>
#include <certsteward/ports/notification_rule_repository.hpp>
#include <certsteward/ports/notification_state_repository.hpp>
#include <certsteward/ports/project_scoped_repository.hpp>
#include <certsteward/ports/zone_repository.hpp>

namespace certsteward::adapters::sqlite {

template <class Port, class T>
class SqliteResourceRepository : public Port {
 public:
  using RefOf = std::optional<std::string> (*)(const T&);

  // refOf, ref2Of: the entity's lookup keys (null: the kind has none; nullopt: this entity has
  // none — `ref2` is indexed only where it is set).
  SqliteResourceRepository(Database& db, std::string kind, RefOf refOf = nullptr,
                           RefOf ref2Of = nullptr)
      : db_(db), kind_(std::move(kind)), ref_(refOf), ref2_(ref2Of) {}

  domain::Status create(const T& e) override {
    return guarded([&]() -> domain::Status {
      auto c = db_.writer();
      c->prepare(
           "INSERT INTO resources (kind, id, project_id, ref, ref2, doc) VALUES (?, ?, ?, ?, ?, "
           "?)")
          .bind(kind_)
          .bind(e.id)
          .bind(e.project_id)
          .bind(ref(e))
          .bind(ref2(e))
          .bind(codec::encode(e))
          .run();
      return {};
    });
  }

  domain::Result<T> get(const domain::Id& projectId, const domain::Id& id) const override {
    return guarded([&]() -> domain::Result<T> {
      auto c = db_.reader();
      auto s = c->prepare("SELECT doc FROM resources WHERE kind = ? AND id = ? AND project_id = ?");
      s.bind(kind_).bind(id).bind(projectId);
      if (!s.step()) return notFound();
      return decoded(s);
    });
  }

  domain::Result<domain::Page<T>> list(const domain::Id& projectId,
                                       const domain::PageRequest& request) const override {
    return guarded([&]() -> domain::Result<domain::Page<T>> {
      auto c = db_.reader();
      Transaction snapshot(*c, false);
      domain::Page<T> page;
      page.page = request.page;
      page.page_size = request.page_size;
      auto count = c->prepare("SELECT COUNT(*) FROM resources WHERE kind = ? AND project_id = ?");
      count.bind(kind_).bind(projectId);
      count.step();
      page.total = count.integer(0);
      auto s = c->prepare(
          "SELECT doc FROM resources WHERE kind = ? AND project_id = ? ORDER BY id LIMIT ? "
          "OFFSET ?");
      s.bind(kind_).bind(projectId).bind(request.page_size).bind(request.offset());
      while (s.step())
        page.items.push_back(decoded(s));
      snapshot.commit();
      return page;
    });
  }

  domain::Status update(const T& e) override {
    return guarded([&]() -> domain::Status {
      auto c = db_.writer();
      auto s = c->prepare(
          "UPDATE resources SET ref = ?, ref2 = ?, doc = ? WHERE kind = ? AND id = ? AND "
          "project_id = ?");
      s.bind(ref(e)).bind(ref2(e)).bind(codec::encode(e)).bind(kind_).bind(e.id).bind(e.project_id);
      if (s.run() == 0) return notFound();
      return {};
    });
  }

  domain::Status remove(const domain::Id& projectId, const domain::Id& id) override {
    return guarded([&]() -> domain::Status {
      auto c = db_.writer();
      auto s = c->prepare("DELETE FROM resources WHERE kind = ? AND id = ? AND project_id = ?");
      s.bind(kind_).bind(id).bind(projectId);
      if (s.run() == 0) return notFound();
      return {};
    });
  }

 protected:
  // Every entity of the project whose ref equals `value` (all of the project's when nullopt).
  domain::Result<std::vector<T>> byRef(const domain::Id& projectId,
                                       const std::optional<std::string>& value) const {
    return guarded([&]() -> domain::Result<std::vector<T>> {
      auto c = db_.reader();
      auto s = value ? c->prepare(
                           "SELECT doc FROM resources WHERE kind = ? AND project_id = ? AND "
                           "ref = ? ORDER BY id")
                     : c->prepare(
                           "SELECT doc FROM resources WHERE kind = ? AND project_id = ? ORDER "
                           "BY id");
      s.bind(kind_).bind(projectId);
      if (value) s.bind(*value);
      std::vector<T> out;
      while (s.step())
        out.push_back(decoded(s));
      return out;
    });
  }

  // One page of the project's entities whose ref equals `value`, newest first (by id).
  domain::Result<domain::Page<T>> pageByRefNewestFirst(const domain::Id& projectId,
                                                       const std::string& value,
                                                       const domain::PageRequest& request) const {
    return guarded([&]() -> domain::Result<domain::Page<T>> {
      auto c = db_.reader();
      Transaction snapshot(*c, false);
      domain::Page<T> page;
      page.page = request.page;
      page.page_size = request.page_size;
      auto count = c->prepare(
          "SELECT COUNT(*) FROM resources WHERE kind = ? AND project_id = ? AND ref = ?");
      count.bind(kind_).bind(projectId).bind(value);
      count.step();
      page.total = count.integer(0);
      auto s = c->prepare(
          "SELECT doc FROM resources WHERE kind = ? AND project_id = ? AND ref = ? ORDER BY id "
          "DESC LIMIT ? OFFSET ?");
      s.bind(kind_).bind(projectId).bind(value).bind(request.page_size).bind(request.offset());
      while (s.step())
        page.items.push_back(decoded(s));
      snapshot.commit();
      return page;
    });
  }

  // The project's first `limit` entities (by id) whose ref2 equals `value`.
  domain::Result<std::vector<T>> byRef2(const domain::Id& projectId, const std::string& value,
                                        std::int64_t limit) const {
    return guarded([&]() -> domain::Result<std::vector<T>> {
      auto c = db_.reader();
      auto s = c->prepare(
          "SELECT doc FROM resources WHERE kind = ? AND project_id = ? AND ref2 = ? ORDER BY id "
          "LIMIT ?");
      s.bind(kind_).bind(projectId).bind(value).bind(limit);
      std::vector<T> out;
      while (s.step())
        out.push_back(decoded(s));
      return out;
    });
  }

 private:
  std::optional<std::string> ref(const T& e) const { return ref_ ? ref_(e) : std::nullopt; }
  std::optional<std::string> ref2(const T& e) const { return ref2_ ? ref2_(e) : std::nullopt; }
  static T decoded(const Statement& s) {
    auto d = codec::decode<T>(s.text(0));
    if (!d) throw SqliteError(0, "stored document is corrupt");
    return std::move(*d);
  }
  static domain::Error notFound() {
    return domain::makeError(domain::ErrorCode::not_found, "not found");
  }

  Database& db_;
  std::string kind_;
  RefOf ref_;
  RefOf ref2_;
};

class SqliteZoneRepository : public SqliteResourceRepository<ports::ZoneRepository, domain::Zone> {
 public:
  explicit SqliteZoneRepository(Database& db);
  domain::Result<std::optional<domain::Zone>> findForName(const domain::Id& projectId,
                                                          const std::string& name) const override;
};

class SqliteDistributionRepository
    : public SqliteResourceRepository<ports::DistributionRepository, domain::Distribution> {
 public:
  explicit SqliteDistributionRepository(Database& db);
  domain::Result<std::vector<domain::Distribution>> listForCertificate(
      const domain::Id& projectId, const domain::Id& certificateId) const override;
};

class SqliteNotificationRuleRepository
    : public SqliteResourceRepository<ports::NotificationRuleRepository, domain::NotificationRule> {
 public:
  explicit SqliteNotificationRuleRepository(Database& db);
  domain::Result<std::vector<domain::NotificationRule>> matching(
      const domain::Id& projectId, domain::EventKind kind) const override;
};

// ref: the channel (listForChannel); ref2: the rule, while the delivery is held (heldForRule).
class SqliteNotificationDeliveryRepository
    : public SqliteResourceRepository<ports::NotificationDeliveryRepository,
                                      domain::NotificationDelivery> {
 public:
  explicit SqliteNotificationDeliveryRepository(Database& db);
  domain::Result<domain::Page<domain::NotificationDelivery>> listForChannel(
      const domain::Id& projectId, const domain::Id& channelId,
      const domain::PageRequest& page) const override;
  domain::Result<std::vector<domain::NotificationDelivery>> heldForRule(
      const domain::Id& projectId, const domain::Id& ruleId, std::int64_t limit) const override;
};

// ref: "<rule id>/<subject>".
class SqliteNotificationStateRepository
    : public SqliteResourceRepository<ports::NotificationStateRepository,
                                      domain::NotificationState> {
 public:
  explicit SqliteNotificationStateRepository(Database& db);
  domain::Result<std::optional<domain::NotificationState>> find(
      const domain::Id& projectId, const domain::Id& ruleId,
      const domain::Id& subject) const override;
};

}  // namespace certsteward::adapters::sqlite
