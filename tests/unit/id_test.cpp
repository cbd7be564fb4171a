// ObjectId-layout ids.
#include <doctest/doctest.h>

#include <set>

#include <certsteward/adapters/crypto/object_id_generator.hpp>
#include <certsteward/domain/id.hpp>
#include <certsteward/testing/fake_clock.hpp>

using namespace certsteward;
using namespace certsteward::domain;

TEST_CASE("id: ObjectId layout puts the creation time first") {
  const Timestamp t = fromUnixSeconds(0x5f5e1000);
  const Id id = makeObjectId(t, {0xab, 0xcd, 0xef, 0x01, 0x23}, 0x123456);
  CHECK(id == "5f5e1000abcdef0123123456");
  CHECK(isValidId(id));
  CHECK(idTimestamp(id) == t);
  CHECK(makeObjectId(t, {0, 0, 0, 0, 0}, 0x1000000) == "5f5e10000000000000000000");
}

TEST_CASE("id: validation accepts only 24 lower-case hex characters") {
  CHECK(isValidId("0123456789abcdef01234567"));
  CHECK_FALSE(isValidId("0123456789ABCDEF01234567"));
  CHECK_FALSE(isValidId("0123456789abcdef0123456"));
  CHECK_FALSE(isValidId("0123456789abcdef012345678"));
  CHECK_FALSE(isValidId("0123456789abcdef0123456g"));
  CHECK_FALSE(isValidId("../../etc/passwd00000000"));
  CHECK_FALSE(isValidId(""));
}

TEST_CASE("id: the generator makes unique ids that sort by creation time") {
  testing::FakeClock clock;
  adapters::crypto::ObjectIdGenerator ids(clock);
  std::set<Id> seen;
  Id previousSecond;
  for (int i = 0; i < 1000; ++i) {
    const Id id = ids.next();
    CHECK(isValidId(id));
    CHECK(seen.insert(id).second);
  }
  const Id early = ids.next();
  clock.advance(std::chrono::seconds{1});
  const Id later = ids.next();
  CHECK(early < later);
  adapters::crypto::ObjectIdGenerator other(clock);
  CHECK(other.next().substr(8, 10) != later.substr(8, 10));  // per-process randomness
}
