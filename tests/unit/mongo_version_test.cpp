// The MongoDB server version gate (>= 6.0).
#include <doctest/doctest.h>

#include <certsteward/adapters/store/mongo/mongo_store.hpp>

using certsteward::adapters::mongo::isSupportedServerVersion;

TEST_CASE("mongo: servers older than 6.0 are refused") {
  const struct {
    const char* version;
    bool ok;
  } rows[] = {{"6.0.0", true},   {"6.0.14", true}, {"7.0.2", true}, {"8.0.0-rc1", true},
              {"5.0.26", false}, {"4.4.0", false}, {"", false},     {"x.y", false}};
  for (const auto& r : rows) {
    CAPTURE(r.version);
    CHECK(isSupportedServerVersion(r.version) == r.ok);
  }
}
