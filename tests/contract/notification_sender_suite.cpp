// The NotificationSender contract suite (testing/contract) against the shared fake and against
// this build's channel senders with the local stand-ins of the integration tests: the SMTP server
// (aiosmtpd, STARTTLS) for email and the HTTPS receiver for webhooks, each started once per test
// process on 127.0.0.1.
#include <algorithm>
#include <string>

#include <certsteward/adapters/notify/channel_senders.hpp>
#include <certsteward/testing/fake_notification_sender.hpp>
#include "support/free_port.hpp"
#include "support/https_receiver.hpp"
#include "support/outbound.hpp"
#include "support/smtp_server.hpp"

namespace {

using namespace certsteward;

struct FakeSenderHarness {
  testing::FakeNotificationSender fake;
  bool available() { return true; }
  std::string reason() { return {}; }
  ports::NotificationSender& sender() { return fake; }
  domain::NotificationChannel channel() {
    domain::NotificationChannel c;
    c.id = "ch-fake";
    c.kind = "webhook";
    c.settings = {{"url", "https://hooks.example.test/certsteward"}};
    return c;
  }
  std::string secret() { return "whsec_contract_secret"; }
  int received(const std::string& deliveryId) {
    const auto sent = fake.sent();
    return static_cast<int>(std::count_if(sent.begin(), sent.end(), [&](const auto& s) {
      return s.message.delivery_id == deliveryId;
    }));
  }
  void refuse() {
    fake.down(domain::makeError(domain::ErrorCode::failed_precondition,
                                "the receiver refused the message (HTTP 400)"));
  }
  void makeUnreachable() {
    fake.down(domain::makeError(domain::ErrorCode::unavailable, "could not connect"));
  }
};

testing::SmtpServer& smtp() {
  static testing::SmtpServer server;
  REQUIRE_MESSAGE(server.available(), server.reason());
  return server;
}

struct EmailHarness {
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  domain::NotificationChannel email = [] {
    domain::NotificationChannel c;
    c.id = "ch-email";
    c.kind = "email";
    c.settings = {{"host", "127.0.0.1"},        {"port", std::to_string(smtp().port())},
                  {"tls", "starttls"},          {"from", "certsteward@example.test"},
                  {"to", "ops@example.test"},   {"username", testing::SmtpServer::kUser},
                  {"ca_bundle", smtp().caPem()}};
    return c;
  }();
  bool available() { return true; }  // smtp() fails the case with the reason when it cannot run
  std::string reason() { return {}; }
  ports::NotificationSender& sender() { return senders; }
  domain::NotificationChannel channel() { return email; }
  std::string secret() { return testing::SmtpServer::kPassword; }
  int received(const std::string& deliveryId) {
    const auto messages = smtp().messages();
    return static_cast<int>(std::count_if(messages.begin(), messages.end(), [&](const auto& m) {
      const auto* id = m.headers.if_contains("X-CertSteward-Delivery");
      return id != nullptr && id->is_string() && id->get_string() == deliveryId;
    }));
  }
  void refuse() { email.settings["to"] = testing::SmtpServer::kRefused; }  // a refused recipient
  void makeUnreachable() { email.settings["port"] = std::to_string(testing::freeLoopbackPort()); }
};

testing::HttpsReceiver& receiver() {
  static testing::HttpsReceiver server;
  REQUIRE_MESSAGE(server.available(), server.reason());
  return server;
}

struct WebhookHarness {
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  domain::NotificationChannel hook = [] {
    domain::NotificationChannel c;
    c.id = "ch-webhook";
    c.kind = "webhook";
    c.settings = {{"url", receiver().url("/contract")}, {"ca_bundle", receiver().caPem()}};
    return c;
  }();
  WebhookHarness() { receiver().answerWith(200); }  // whatever an earlier case made it answer
  bool available() { return true; }  // receiver() fails the case with the reason when it cannot run
  std::string reason() { return {}; }
  ports::NotificationSender& sender() { return senders; }
  domain::NotificationChannel channel() { return hook; }
  std::string secret() { return "whsec_contract_secret"; }
  int received(const std::string& deliveryId) {
    const auto requests = receiver().requests();
    return static_cast<int>(std::count_if(requests.begin(), requests.end(), [&](const auto& r) {
      return r.header("X-CertSteward-Delivery") == deliveryId;
    }));
  }
  void refuse() { receiver().answerWith(400, "no such hook"); }
  void makeUnreachable() {
    hook.settings["url"] =
        "https://127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/contract";
  }
};

}  // namespace

#define CERTSTEWARD_NOTIFICATION_SENDER_HARNESSES FakeSenderHarness, EmailHarness, WebhookHarness
#include <certsteward/testing/contract/notification_sender_contract.hpp>
