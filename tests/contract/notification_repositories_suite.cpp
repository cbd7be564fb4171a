// The notification repositories contract suite (testing/contract) against this project's store
// adapters.
#include "contract/store_factories.hpp"

#include <certsteward/adapters/store/codec/json_codec.hpp>
#include <certsteward/testing/contract/notification_repositories_contract.hpp>

using namespace certsteward;
using namespace certsteward::domain;

// Codec level, once: documents written before rules had their delivery settings.
TEST_CASE("notification rules: a document without the delivery settings reads with defaults") {
  const auto old = adapters::codec::decode<NotificationRule>(
      R"({"id":"r1","project_id":"p1","name":"old","events":["job.failed"],)"
      R"("channel_ids":["c1"],"enabled":true,"created_at":1000,"updated_at":2000})");
  REQUIRE(old.ok());
  CHECK(old->id == "r1");
  CHECK(old->name == "old");
  CHECK(old->events == std::vector<EventKind>{EventKind::job_failed});
  CHECK(old->channel_ids == std::vector<Id>{"c1"});
  CHECK(old->updated_at == Timestamp{std::chrono::milliseconds(2000)});
  CHECK(old->certificate_pattern.empty());
  CHECK_FALSE(old->only_on_change);
  CHECK(old->thresholds_days == std::vector<int>{30, 14, 7, 3, 1});
  CHECK(old->mode == "each");
  CHECK(old->digest_time == "08:00");
  CHECK_FALSE(old->last_digest_at.has_value());

  // Written empty, the thresholds stay empty (missing and empty are not the same).
  NotificationRule none;
  none.thresholds_days = {};
  none.last_digest_at = Timestamp{std::chrono::milliseconds(5)};
  const auto text = adapters::codec::encode(none);
  const auto back = adapters::codec::decode<NotificationRule>(text);
  REQUIRE(back.ok());
  CHECK(back->thresholds_days.empty());
  CHECK(back->last_digest_at == Timestamp{std::chrono::milliseconds(5)});

  // A delivery status the codec does not know is a corrupt document, not a silent default.
  CHECK(adapters::codec::decode<NotificationDelivery>(R"({"id":"d1","status":"lost"})")
            .error()
            .code == ErrorCode::internal);
}
