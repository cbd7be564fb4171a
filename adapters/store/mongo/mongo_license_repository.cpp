// The licence in MongoDB.
#include <certsteward/adapters/store/mongo/mongo_license_repository.hpp>

namespace certsteward::adapters::mongo {

domain::Result<std::optional<domain::License>> MongoLicenseRepository::get() const {
  return guarded([&]() -> domain::Result<std::optional<domain::License>> {
    auto c = db_.client();
    auto found = c.findOne("license", Bson().oid("_id", keyOid("license")), Bson());
    if (!found) return std::optional<domain::License>{};
    return std::optional<domain::License>(decodeOrThrow<domain::License>(*found));
  });
}

domain::Status MongoLicenseRepository::put(const domain::License& license) {
  return guarded([&]() -> domain::Status {
    auto c = db_.client();
    Bson doc = Bson::fromJson(codec::encode(license));
    doc.oid("_id", keyOid("license"));
    if (c.replaceOne("license", Bson().oid("_id", keyOid("license")), doc) == 0) {
      try {
        c.insert("license", doc);
      } catch (const MongoError& e) {
        if (!isDuplicateKey(e)) throw;
        c.replaceOne("license", Bson().oid("_id", keyOid("license")), doc);
      }
    }
    return {};
  });
}

}  // namespace certsteward::adapters::mongo
