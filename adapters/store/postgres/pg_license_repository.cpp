// The licence in PostgreSQL.
#include <certsteward/adapters/store/postgres/pg_license_repository.hpp>

#include <certsteward/adapters/store/codec/json_codec.hpp>
#include <certsteward/adapters/store/postgres/pg_documents.hpp>

namespace certsteward::adapters::postgres {

domain::Result<std::optional<domain::License>> PgLicenseRepository::get() const {
  return guarded([&]() -> domain::Result<std::optional<domain::License>> {
    auto rows = db_.exec("SELECT doc FROM license WHERE id = 1");
    if (rows.empty()) return std::optional<domain::License>{};
    auto decoded = codec::decode<domain::License>(rows.text(0, 0));
    if (!decoded) return decoded.error();
    return std::optional<domain::License>(std::move(*decoded));
  });
}

domain::Status PgLicenseRepository::put(const domain::License& license) {
  return guarded([&]() -> domain::Status {
    db_.exec(q("INSERT INTO license (id, doc) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET doc = "
               "EXCLUDED.doc"),
             {p(codec::encode(license))});
    return {};
  });
}

}  // namespace certsteward::adapters::postgres
