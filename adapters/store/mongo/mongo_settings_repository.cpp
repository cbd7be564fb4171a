// Settings in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_settings_repository.hpp>

#include <certsteward/adapters/store/mongo/mongo_documents.hpp>

namespace certsteward::adapters::mongo {

domain::Result<std::optional<domain::Setting>> MongoSettingsRepository::get(
    const std::string& key) const {
  return guarded([&]() -> domain::Result<std::optional<domain::Setting>> {
    auto c = db_.client();
    auto found = c.findOne("settings", Bson().oid("_id", keyOid("setting|" + key)), Bson());
    if (!found) return std::optional<domain::Setting>{};
    Bson doc = Bson::fromJson(*found);
    return std::optional<domain::Setting>(
        domain::Setting{textField(doc, "key"), textField(doc, "value"),
                        tsOf(intField(doc, "updated_at").value_or(0))});
  });
}

domain::Status MongoSettingsRepository::put(const domain::Setting& s) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    c.updateOne(
        "settings", Bson().oid("_id", keyOid("setting|" + s.key)),
        Bson().doc("$set",
                   Bson().str("key", s.key).str("value", s.value).ts("updated_at", s.updated_at)),
        true);
    return {};
  });
}

}  // namespace certsteward::adapters::mongo
