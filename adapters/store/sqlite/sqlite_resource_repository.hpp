// SqliteResourceRepository<Port, T>: every ProjectScopedRepository port in one `resources`
// table keyed by (kind, id), with an optional indexed `ref` column for the one extra lookup a
// kind needs. Thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "adapters/store/codec/json_codec.hpp"
#include "adapters/store/sqlite/sqlite_database.hpp"
#include "ports/distribution_repository.hpp"
#include "ports/notification_rule_repository.hpp"
#include "ports/project_scoped_repository.hpp"
#include "ports/zone_repository.hpp"

namespace certsteward::adapters::sqlite {

template <class Port, class T>
class SqliteResourceRepository : public Port {
 public:
  using RefOf = std::optional<std::string> (*)(const T&);

  SqliteResourceRepository(Database& db, std::string kind, RefOf refOf = nullptr)
      : db_(db), kind_(std::move(kind)), ref_(refOf) {}

  domain::Status create(const T& e) override {
    return guarded([&]() -> domain::Status {
      auto c = db_.writer();
      c->prepare("INSERT INTO resources (kind, id, project_id, ref, doc) VALUES (?, ?, ?, ?, ?)")
          .bind(kind_)
          .bind(e.id)
          .bind(e.project_id)
          .bind(ref(e))
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
          "UPDATE resources SET ref = ?, doc = ? WHERE kind = ? AND id = ? AND project_id = ?");
      s.bind(ref(e)).bind(codec::encode(e)).bind(kind_).bind(e.id).bind(e.project_id);
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

 private:
  std::optional<std::string> ref(const T& e) const { return ref_ ? ref_(e) : std::nullopt; }
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

}  // namespace certsteward::adapters::sqlite
