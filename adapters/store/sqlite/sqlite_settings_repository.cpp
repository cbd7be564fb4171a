// Settings in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_settings_repository.hpp>

namespace certsteward::adapters::sqlite {

domain::Result<std::optional<domain::Setting>> SqliteSettingsRepository::get(
    const std::string& key) const {
  return guarded([&]() -> domain::Result<std::optional<domain::Setting>> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT key, value, updated_at FROM settings WHERE key = ?");
    s.bind(key);
    if (!s.step()) return std::optional<domain::Setting>{};
    return std::optional<domain::Setting>(domain::Setting{s.text(0), s.text(1), *s.timestamp(2)});
  });
}

domain::Status SqliteSettingsRepository::put(const domain::Setting& setting) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare(
         "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO "
         "UPDATE SET value = excluded.value, updated_at = excluded.updated_at")
        .bind(setting.key)
        .bind(setting.value)
        .bind(setting.updated_at)
        .run();
    return {};
  });
}

}  // namespace certsteward::adapters::sqlite
