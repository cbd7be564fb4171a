// Settings in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_settings_repository.hpp>

#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {

domain::Result<std::optional<domain::Setting>> PgSettingsRepository::get(
    const std::string& key) const {
  return guarded([&]() -> domain::Result<std::optional<domain::Setting>> {
    auto rows = db_.exec(q("SELECT key, value, updated_at FROM settings WHERE key = ?"), {p(key)});
    if (rows.empty()) return std::optional<domain::Setting>{};
    return std::optional<domain::Setting>(
        domain::Setting{rows.text(0, 0), rows.text(0, 1), *timestampAt(rows, 0, 2)});
  });
}

domain::Status PgSettingsRepository::put(const domain::Setting& setting) {
  return guarded([&]() -> domain::Status {
    db_.exec(q("INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) "
               "DO UPDATE SET value = EXCLUDED.value, updated_at = EXCLUDED.updated_at"),
             {p(setting.key), p(setting.value), p(setting.updated_at)});
    return {};
  });
}

}  // namespace certsteward::adapters::postgres
