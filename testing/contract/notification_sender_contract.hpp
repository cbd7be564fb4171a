// Contract of NotificationSender on every adapter (and on an embedding team's own channel): a
// message the receiver accepts is ok and arrives under its delivery id — a redelivery too, under
// the same id, so the receiver can drop the duplicate; a receiver that refuses the message for
// good is failed_precondition, an unreachable one unavailable (worth retrying) and nothing
// arrives; no error quotes the secret.
//
// A suite header: include it from one test file of its own, after defining
// CERTSTEWARD_NOTIFICATION_SENDER_HARNESSES as the list of harnesses to run it against. A harness
// is default-constructible and provides:
//   bool available(); std::string reason();      // its receiver runs here, or why not
//   ports::NotificationSender& sender();
//   domain::NotificationChannel channel();       // reaches a receiver that accepts messages
//   std::string secret();                        // the channel's secret, opened
//   int received(const std::string& deliveryId); // how many messages with that id reached it
//   void refuse();                               // the receiver refuses messages for good now
//   void makeUnreachable();                      // channel() now names a receiver that is down
// Every case uses delivery ids of its own (a real receiver may be shared by the cases).
#pragma once

#ifndef CERTSTEWARD_NOTIFICATION_SENDER_HARNESSES
#error "define CERTSTEWARD_NOTIFICATION_SENDER_HARNESSES (the harnesses) before including the suite"
#endif

#include <doctest/doctest.h>

#include <chrono>
#include <string>

#include <certsteward/ports/notification_sender.hpp>

namespace certsteward::testing::notification_sender_contract {

inline ports::OutgoingMessage message(const std::string& deliveryId) {
  ports::OutgoingMessage m;
  m.delivery_id = deliveryId;
  m.event = "cert.expiring_soon";
  m.subject = "Certificate contract.example.test expires in 7 days";
  m.text = "The certificate for contract.example.test expires on 2026-01-08.";
  m.html = "<p>The certificate for <b>contract.example.test</b> expires on 2026-01-08.</p>";
  m.variables = {{"certificate.common_name", "contract.example.test"}, {"days_left", "7"}};
  m.at = domain::Timestamp{std::chrono::seconds{1767225600}};
  return m;
}

inline std::string why(const domain::Status& status) {
  return status.ok() ? std::string() : status.error().message;
}

constexpr auto kTimeout = std::chrono::seconds{10};

}  // namespace certsteward::testing::notification_sender_contract

TEST_CASE_TEMPLATE(
    "notification sender: an accepted message arrives under its delivery id, a redelivery under "
    "the same id",
    H, CERTSTEWARD_NOTIFICATION_SENDER_HARNESSES) {
  using namespace certsteward::testing::notification_sender_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  auto m = message("65f0c0ffee00000000000001");
  const auto sent = h.sender().send(h.channel(), h.secret(), m, kTimeout);
  REQUIRE_MESSAGE(sent.ok(), why(sent));
  CHECK(h.received(m.delivery_id) == 1);

  m.redelivery = true;
  const auto again = h.sender().send(h.channel(), h.secret(), m, kTimeout);
  REQUIRE_MESSAGE(again.ok(), why(again));
  CHECK(h.received(m.delivery_id) == 2);
}

TEST_CASE_TEMPLATE(
    "notification sender: a receiver that refuses for good is failed_precondition, without the "
    "secret",
    H, CERTSTEWARD_NOTIFICATION_SENDER_HARNESSES) {
  using namespace certsteward::testing::notification_sender_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  h.refuse();
  const auto m = message("65f0c0ffee00000000000002");
  const auto refused = h.sender().send(h.channel(), h.secret(), m, kTimeout);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == certsteward::domain::ErrorCode::failed_precondition);
  CHECK_FALSE(refused.error().message.empty());
  CHECK(refused.error().message.find(h.secret()) == std::string::npos);
}

TEST_CASE_TEMPLATE(
    "notification sender: an unreachable receiver is unavailable, worth retrying, without the "
    "secret",
    H, CERTSTEWARD_NOTIFICATION_SENDER_HARNESSES) {
  using namespace certsteward::testing::notification_sender_contract;
  H h;
  REQUIRE_MESSAGE(h.available(), h.reason());
  h.makeUnreachable();
  const auto m = message("65f0c0ffee00000000000003");
  const auto down = h.sender().send(h.channel(), h.secret(), m, kTimeout);
  REQUIRE_FALSE(down.ok());
  CHECK(down.error().code == certsteward::domain::ErrorCode::unavailable);
  CHECK_FALSE(down.error().message.empty());
  CHECK(down.error().message.find(h.secret()) == std::string::npos);
  CHECK(h.received(m.delivery_id) == 0);
}
