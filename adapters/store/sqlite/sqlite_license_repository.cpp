// The licence in SQLite.
#include <certsteward/adapters/store/sqlite/sqlite_license_repository.hpp>

#include <certsteward/adapters/store/codec/json_codec.hpp>

namespace certsteward::adapters::sqlite {

domain::Result<std::optional<domain::License>> SqliteLicenseRepository::get() const {
  return guarded([&]() -> domain::Result<std::optional<domain::License>> {
    auto c = db_.reader();
    auto s = c->prepare("SELECT doc FROM license WHERE id = 1");
    if (!s.step()) return std::optional<domain::License>{};
    auto decoded = codec::decode<domain::License>(s.text(0));
    if (!decoded) return decoded.error();
    return std::optional<domain::License>(std::move(*decoded));
  });
}

domain::Status SqliteLicenseRepository::put(const domain::License& license) {
  return guarded([&]() -> domain::Status {
    auto c = db_.writer();
    c->prepare(
         "INSERT INTO license (id, doc) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET doc = "
         "excluded.doc")
        .bind(codec::encode(license))
        .run();
    return {};
  });
}

}  // namespace certsteward::adapters::sqlite
