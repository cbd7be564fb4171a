// Notifications end to end through the packaged binary, with Pebble, bind9, a real SMTP server
// (aiosmtpd, STARTTLS) and an HTTPS webhook receiver on 127.0.0.1: a renewal that dies on a
// wrong TSIG key is told by email and webhook with the reason and without any secret, once; the
// fix and a retry of the dead renewal send the recovery once; a server killed between the event and
// the send delivers it once after a restart; the channel test and the deliveries list over the API;
// a mail server that hangs never holds up issuance or renewal.
#include <doctest/doctest.h>

#include <chrono>
#include <filesystem>
#include <set>
#include <thread>

#include "e2e/deployment.hpp"
#include "support/https_receiver.hpp"
#include "support/silent_listener.hpp"
#include "support/smtp_server.hpp"

using namespace certsteward::testing;

namespace {

constexpr const char* kHookSecret = "hook-signing-secret-0123456789";
constexpr const char* kWrongTsig = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";

// Polls `pred` every 200 ms for at most `seconds`.
template <class P>
bool eventually(P pred, int seconds) {
  for (int i = 0; i < seconds * 5; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds{200});
  }
  return pred();
}

std::string credentialPath(Deployment& d) {
  auto list = parseObject(d.http->request("GET", d.base + "/dns-credentials", "", {d.auth}));
  return d.base + "/dns-credentials/" +
         field(list.at("dns_credentials").as_array().at(0).as_object(), "id");
}

std::string webhookChannel(Deployment& d, const HttpsReceiver& hook) {
  return d.created(d.base + "/notification-channels",
                   json::object{{"name", "hook"},
                                {"kind", "webhook"},
                                {"settings", json::object{{"url", hook.url("/certsteward")},
                                                          {"ca_bundle", hook.caPem()}}},
                                {"secret", kHookSecret}},
                   "notification_channel");
}

std::vector<json::object> webhookDocuments(const HttpsReceiver& hook) {
  std::vector<json::object> out;
  for (const auto& r : hook.requests()) {
    if (r.path != "/certsteward") continue;
    out.push_back(json::parse(r.body).as_object());
  }
  return out;
}

}  // namespace

TEST_CASE(
    "notifications e2e: a dying renewal is told by email and webhook once with its reason (one "
    "message for its two events), its recovery once") {
  SmtpServer smtp;
  REQUIRE_MESSAGE(smtp.available(), smtp.reason());
  HttpsReceiver hook;
  REQUIRE_MESSAGE(hook.available(), hook.reason());
  Deployment d(0,
               "worker.max_attempts = 2\nworker.backoff_base = 100ms\nworker.backoff_cap = 1s\n"
               "notifications.public_url = https://certs.example.test\n");
  auto& http = *d.http;
  const std::string mail =
      d.created(d.base + "/notification-channels",
                json::object{{"name", "ops mail"},
                             {"kind", "email"},
                             {"settings", json::object{{"host", "127.0.0.1"},
                                                       {"port", std::to_string(smtp.port())},
                                                       {"from", "certs@example.test"},
                                                       {"from_name", "CertSteward"},
                                                       {"to", "ops@example.test"},
                                                       {"username", SmtpServer::kUser},
                                                       {"ca_bundle", smtp.caPem()}}},
                             {"secret", SmtpServer::kPassword}},
                "notification_channel");
  const std::string hookId = webhookChannel(d, hook);
  d.created(d.base + "/notification-rules",
            json::object{{"name", "renewals"},
                         {"events", json::array{"job.failed", "cert.renewal_failed"}},
                         {"channel_ids", json::array{mail, hookId}},
                         {"only_on_change", true}},
            "notification_rule");

  const auto [certPath, jobPath] = d.order(R"({"common_name":"told.example.test"})");
  const auto active = d.waitFor(certPath, "active", "");
  d.moveToFreshAccount(certPath);  // the renewal meets the DNS
  const auto credential = credentialPath(d);
  REQUIRE(http.request("PATCH", credential, json::serialize(json::object{{"secret", kWrongTsig}}),
                       {d.auth})
              .status == 200);
  const auto renewal = http.request("POST", certPath + "/renew", "", {d.auth});
  REQUIRE(renewal.status == 202);
  const std::string renewalJob =
      d.base + "/jobs/" + field(parseObject(renewal).at("job").as_object(), "id");
  d.waitFor(certPath, "renewal_failed", "");
  d.waitForJob(renewalJob, "dead");

  // The failure raised job.failed and cert.renewal_failed; the rule selects both and sends one
  // message for it, the certificate's, by webhook and by email.
  REQUIRE_MESSAGE(eventually([&] { return webhookDocuments(hook).size() >= 1; }, 30),
                  d.server->log());
  REQUIRE(eventually([&] { return smtp.messages().size() >= 1; }, 30));
  std::this_thread::sleep_for(std::chrono::seconds{2});  // nothing more is coming
  const auto docs = webhookDocuments(hook);
  REQUIRE(docs.size() == 1);
  std::set<std::string> events;
  for (const auto& doc : docs) {
    events.insert(field(doc, "event"));
    CHECK_FALSE(doc.at("recovery").as_bool());
    const auto& vars = doc.at("variables").as_object();
    CHECK(field(vars, "certificate.common_name") == "told.example.test");
    CHECK(field(vars, "reason").find("TSIG") != std::string::npos);
    CHECK(field(vars, "link").starts_with("https://certs.example.test/projects/"));
  }
  CHECK(events == std::set<std::string>{"cert.renewal_failed"});
  for (const auto& r : hook.requests()) {
    // Signed over timestamp and body with the channel's secret; the delivery id in a header.
    const std::string ts = r.header("X-CertSteward-Timestamp");
    CHECK(r.header("X-CertSteward-Signature") ==
          "sha256=" + HttpsReceiver::hmacSha256Hex(kHookSecret, ts + "." + r.body));
    CHECK_FALSE(r.header("X-CertSteward-Delivery").empty());
    CHECK(r.body.find(kWrongTsig) == std::string::npos);
    CHECK(r.body.find(kHookSecret) == std::string::npos);
    CHECK(r.body.find(SmtpServer::kPassword) == std::string::npos);
  }
  const auto messages = smtp.messages();
  REQUIRE(messages.size() == 1);
  for (const auto& m : messages) {
    CHECK(m.tls);
    CHECK(m.login == SmtpServer::kUser);
    CHECK(m.rcpt_tos == std::vector<std::string>{"ops@example.test"});
    CHECK(m.text.find("told.example.test") != std::string::npos);
    CHECK(m.text.find("TSIG") != std::string::npos);
    CHECK(m.raw.find(kWrongTsig) == std::string::npos);
    CHECK(m.raw.find(SmtpServer::kPassword) == std::string::npos);
  }

  // Counted by channel kind and outcome, with the delay from event to delivery.
  const auto metrics = http.request("GET", "/metrics", "", {});
  REQUIRE(metrics.status == 200);
  CHECK(metrics.body.find(
            R"(certsteward_notification_deliveries_total{kind="webhook",outcome="sent"} 1)") !=
        std::string::npos);
  CHECK(metrics.body.find(
            R"(certsteward_notification_deliveries_total{kind="email",outcome="sent"} 1)") !=
        std::string::npos);
  CHECK(metrics.body.find(
            R"(certsteward_notification_delivery_latency_seconds_count{kind="email"} 1)") !=
        std::string::npos);
  CHECK(metrics.body.find(R"(certsteward_events_total{kind="cert.renewal_failed"} 1)") !=
        std::string::npos);

  // The deliveries are listed, sent; the secret never comes back.
  auto listed = parseObject(
      http.request("GET", d.base + "/notification-channels/" + mail + "/deliveries", "", {d.auth}));
  REQUIRE(listed.at("total").as_int64() == 1);
  for (const auto& item : listed.at("deliveries").as_array())
    CHECK(field(item.as_object(), "status") == "sent");
  auto channel = http.request("GET", d.base + "/notification-channels/" + mail, "", {d.auth});
  CHECK(channel.body.find(SmtpServer::kPassword) == std::string::npos);
  CHECK(parseObject(channel)
            .at("notification_channel")
            .as_object()
            .at("secret_configured")
            .as_bool());

  // The fix and the dead renewal retried: renewed, and the recovery is told once (a second
  // renewal is not).
  REQUIRE(http.request("PATCH", credential,
                       json::serialize(json::object{{"secret", Bind9Server::kSecret256}}), {d.auth})
              .status == 200);
  REQUIRE(http.request("POST", renewalJob + "/retry", "", {d.auth}).status == 200);
  const auto renewed = d.waitFor(certPath, "active", field(active, "serial_number"));
  REQUIRE(eventually([&] { return webhookDocuments(hook).size() >= 2; }, 30));
  REQUIRE(eventually([&] { return smtp.messages().size() >= 2; }, 30));
  const auto recovery = webhookDocuments(hook).back();
  CHECK(field(recovery, "event") == "cert.renewed");
  CHECK(recovery.at("recovery").as_bool());
  CHECK(field(recovery, "subject").find("recovered") != std::string::npos);
  CHECK(smtp.messages().back().headers.at("Subject").as_string().find("recovered") !=
        std::string::npos);
  REQUIRE(http.request("POST", certPath + "/renew", "", {d.auth}).status == 202);
  d.waitFor(certPath, "active", field(renewed, "serial_number"));
  std::this_thread::sleep_for(std::chrono::seconds{2});
  CHECK(webhookDocuments(hook).size() == 2);
  CHECK(d.server->stop() == 0);
}

TEST_CASE(
    "notifications e2e: killed between the event and the send, it goes out once after a "
    "restart") {
  HttpsReceiver hook;
  REQUIRE_MESSAGE(hook.available(), hook.reason());
  const auto shared = std::filesystem::temp_directory_path() /
                      ("certsteward-notify-crash-" + std::to_string(::getpid()));
  std::filesystem::create_directories(shared);
  const std::string store = "store.url = sqlite://" + (shared / "db.sqlite").string() + "\n";
  // This instance records events and their deliveries but sends nothing (no notification
  // workers): what a crash right after the event's commit leaves behind.
  Deployment d(0, store + "worker.max_attempts = 1\nnotifications.workers = 0\n");
  const std::string hookId = webhookChannel(d, hook);
  d.created(d.base + "/notification-rules",
            json::object{{"name", "failures"},
                         {"events", json::array{"job.failed"}},
                         {"channel_ids", json::array{hookId}}},
            "notification_rule");
  REQUIRE(d.http
              ->request("PATCH", credentialPath(d),
                        json::serialize(json::object{{"secret", kWrongTsig}}), {d.auth})
              .status == 200);
  const auto ordered = d.order(R"({"common_name":"crash.example.test"})");
  d.waitForJob(ordered.jobPath, "dead");
  const std::string deliveries = d.base + "/notification-channels/" + hookId + "/deliveries";
  REQUIRE(eventually(
      [&] {
        return parseObject(d.http->request("GET", deliveries, "", {d.auth}))
                   .at("total")
                   .as_int64() == 1;
      },
      10));
  d.server->kill9();
  CHECK(hook.requests().empty());

  // Restarted on the same store, with workers: the delivery goes out, once.
  ServerProcess again({}, store + "worker.enabled = true\nworker.poll_interval = 200ms\n");
  HttpClient http(again.baseUrl());
  auto login = http.request("POST", "/api/v1/auth/login",
                            R"({"username":"root","password":"correct horse battery"})");
  REQUIRE(login.status == 200);
  const std::string auth = "Authorization: Bearer " + field(parseObject(login), "access_token");
  REQUIRE_MESSAGE(eventually([&] { return webhookDocuments(hook).size() == 1; }, 30), again.log());
  REQUIRE(eventually(
      [&] {
        auto page = parseObject(http.request("GET", deliveries, "", {auth}));
        return field(page.at("deliveries").as_array().at(0).as_object(), "status") == "sent";
      },
      10));
  std::this_thread::sleep_for(std::chrono::seconds{2});
  const auto docs = webhookDocuments(hook);
  REQUIRE(docs.size() == 1);
  CHECK(field(docs[0], "event") == "job.failed");
  auto page = parseObject(http.request("GET", deliveries, "", {auth}));
  CHECK(field(page.at("deliveries").as_array().at(0).as_object(), "id") ==
        field(docs[0], "delivery_id"));
  CHECK(again.stop() == 0);
  std::error_code ignored;
  std::filesystem::remove_all(shared, ignored);
}

TEST_CASE("notifications e2e: the channel test answers what the receiver said") {
  HttpsReceiver hook;
  REQUIRE_MESSAGE(hook.available(), hook.reason());
  Deployment d(0);
  auto& http = *d.http;
  const std::string hookId = webhookChannel(d, hook);
  const std::string test = d.base + "/notification-channels/" + hookId + "/test";
  auto ok = http.request("POST", test, "", {d.auth});
  REQUIRE_MESSAGE(ok.status == 200, ok.body);
  CHECK(parseObject(ok).at("ok").as_bool());
  REQUIRE(webhookDocuments(hook).size() == 1);
  CHECK(field(webhookDocuments(hook)[0], "event") == "test");

  hook.answerWith(403, "token revoked for this hook");
  auto refused = http.request("POST", test, "", {d.auth});
  REQUIRE(refused.status == 200);
  const auto body = parseObject(refused);
  CHECK_FALSE(body.at("ok").as_bool());
  CHECK(field(body, "error").find("403") != std::string::npos);
  CHECK(field(body, "error").find("token revoked") == std::string::npos);  // the receiver's words
  CHECK(refused.body.find(kHookSecret) == std::string::npos);
  auto listed = parseObject(http.request(
      "GET", d.base + "/notification-channels/" + hookId + "/deliveries", "", {d.auth}));
  CHECK(listed.at("total").as_int64() == 2);
  CHECK(field(listed.at("deliveries").as_array().at(0).as_object(), "status") == "dead");

  // Bad settings are refused when saved, naming the setting.
  auto bad = http.request(
      "POST", d.base + "/notification-channels",
      R"({"name":"x","kind":"webhook","settings":{"url":"http://hooks.example.test/"}})", {d.auth});
  CHECK(bad.status == 422);
  CHECK(bad.body.find("settings.url") != std::string::npos);
  auto template_ = http.request(
      "POST", d.base + "/notification-channels",
      R"({"name":"x","kind":"webhook","settings":{"url":"https://h.example.test/","body_template":"{{nope}}"}})",
      {d.auth});
  CHECK(template_.status == 422);
  CHECK(template_.body.find("nope") != std::string::npos);
  auto slack = http.request(
      "POST", d.base + "/notification-channels",
      R"({"name":"s","kind":"slack","secret":"http://hooks.slack.example/T0/B0/plain-http-secret"})",
      {d.auth});
  CHECK(slack.status == 422);
  CHECK(slack.body.find("plain-http-secret") == std::string::npos);
  auto unknown = http.request("POST", d.base + "/notification-rules",
                              R"({"name":"x","events":["job.failed"],"mode":"hourly"})", {d.auth});
  CHECK(unknown.status == 400);
  CHECK(d.server->stop() == 0);
}

TEST_CASE(
    "notifications e2e: a receiver down for a while gets it after retries, one down for "
    "good has it listed dead with the error") {
  HttpsReceiver hook;
  REQUIRE_MESSAGE(hook.available(), hook.reason());
  Deployment d(0,
               "worker.max_attempts = 1\nworker.backoff_base = 200ms\nworker.backoff_cap = 1s\n"
               "notifications.max_attempts = 3\n");
  auto& http = *d.http;
  const std::string hookId = webhookChannel(d, hook);
  d.created(d.base + "/notification-rules",
            json::object{{"name", "failures"},
                         {"events", json::array{"job.failed"}},
                         {"channel_ids", json::array{hookId}}},
            "notification_rule");
  REQUIRE(http.request("PATCH", credentialPath(d),
                       json::serialize(json::object{{"secret", kWrongTsig}}), {d.auth})
              .status == 200);
  const std::string deliveries = d.base + "/notification-channels/" + hookId + "/deliveries";
  const auto newest = [&] {
    auto page = parseObject(http.request("GET", deliveries, "", {d.auth}));
    const auto& items = page.at("deliveries").as_array();
    return items.empty() ? json::object{} : items.at(0).as_object();
  };

  // Down for a while: 503 twice, then up: sent on the third attempt. The receiver counts the
  // answers itself, so a slow machine cannot let a third attempt meet the outage too.
  hook.answerWithFor(503, 2, "maintenance");
  const auto first = d.order(R"({"common_name":"down1.example.test"})");
  d.waitForJob(first.jobPath, "dead");
  REQUIRE_MESSAGE(eventually([&] { return field(newest(), "status") == "sent"; }, 30),
                  json::serialize(newest()));
  CHECK(newest().at("attempts").as_int64() == 3);
  CHECK(field(newest(), "last_error").empty());

  // Down for good: three attempts, then dead with what the receiver said.
  hook.answerWith(502, "bad gateway upstream");
  // (the free plan allows one certificate: its dead job, retried, dies again)
  REQUIRE(http.request("POST", first.jobPath + "/retry", "", {d.auth}).status == 200);
  REQUIRE(eventually(
      [&] {
        auto page = parseObject(http.request("GET", deliveries, "", {d.auth}));
        return page.at("total").as_int64() == 2;
      },
      20));
  REQUIRE_MESSAGE(eventually([&] { return field(newest(), "status") == "dead"; }, 30),
                  json::serialize(newest()));
  const auto dead = newest();
  CHECK(dead.at("attempts").as_int64() == 3);
  CHECK(field(dead, "last_error").find("502") != std::string::npos);
  CHECK(d.server->stop() == 0);
}

TEST_CASE("notifications e2e: a mail server that hangs never holds up issuance or renewal") {
  SilentListener stuck;  // accepts and never answers: every send waits for its timeout
  REQUIRE(stuck.port() != 0);
  // One worker on each lane: were deliveries on the issuance lane, the renewals below would
  // queue behind a minute-long hang each and miss waitFor's minute.
  Deployment d(0,
               "notifications.timeout = 60s\nnotifications.workers = 1\n"
               "worker.max_concurrency = 1\n");
  auto& http = *d.http;
  const std::string mail =
      d.created(d.base + "/notification-channels",
                json::object{{"name", "stuck mail"},
                             {"kind", "email"},
                             {"settings", json::object{{"host", "127.0.0.1"},
                                                       {"port", std::to_string(stuck.port())},
                                                       {"tls", "none"},
                                                       {"from", "certs@example.test"},
                                                       {"to", "ops@example.test"}}}},
                "notification_channel");
  d.created(d.base + "/notification-rules",
            json::object{{"name", "everything"},
                         {"events", json::array{"cert.issued", "cert.renewed"}},
                         {"channel_ids", json::array{mail}}},
            "notification_rule");
  const std::string deliveries = d.base + "/notification-channels/" + mail + "/deliveries";
  const auto sentCount = [&] {
    int sent = 0;
    auto page = parseObject(http.request("GET", deliveries + "?page_size=100", "", {d.auth}));
    for (const auto& item : page.at("deliveries").as_array())
      sent += field(item.as_object(), "status") == "sent" ? 1 : 0;
    return std::pair{page.at("total").as_int64(), sent};
  };

  // Issued, then renewed three times, while the first message still hangs on the mail server
  // (its attempt waits up to 60 s; the notification lane has one worker).
  const auto [certPath, jobPath] = d.order(R"({"common_name":"busy.example.test"})");
  auto cert = d.waitFor(certPath, "active", "");
  for (int i = 0; i < 3; ++i) {
    REQUIRE(http.request("POST", certPath + "/renew", "", {d.auth}).status == 202);
    cert = d.waitFor(certPath, "active", field(cert, "serial_number"));
  }
  const auto [total, sent] = sentCount();
  CHECK(total == 4);  // issued + three renewals, each recorded with its delivery
  CHECK(sent == 0);   // and the first still hangs on the mail server
  // (A send in progress is not interrupted by a stop yet: the stop would wait for it, up to
  // worker.shutdown_wait. Not this test's subject: the server is killed.)
  d.server->kill9();
}

TEST_CASE(
    "notifications e2e: with the default outbound policy a channel test to this machine is "
    "refused before any connection") {
  HttpsReceiver hook;
  REQUIRE_MESSAGE(hook.available(), hook.reason());
  ServerProcess server({{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", "root"},
                        {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", "correct horse battery"}},
                       "network.outbound_allow =\n");
  HttpClient http(server.baseUrl());
  auto login = http.request("POST", "/api/v1/auth/login",
                            R"({"username":"root","password":"correct horse battery"})");
  REQUIRE(login.status == 200);
  const std::string auth = "Authorization: Bearer " + field(parseObject(login), "access_token");
  auto project = http.request("POST", "/api/v1/projects", R"({"name":"outbound"})", {auth});
  REQUIRE(project.status == 201);
  const std::string base =
      "/api/v1/projects/" + field(parseObject(project).at("project").as_object(), "id");
  for (const std::string host : {"127.0.0.1", "2130706433", "localhost"}) {
    CAPTURE(host);
    const std::string url = "https://" + host + ":" + std::to_string(hook.port()) + "/hook";
    auto channel =
        http.request("POST", base + "/notification-channels",
                     json::serialize(json::object{{"name", "hook " + host},
                                                  {"kind", "webhook"},
                                                  {"settings", json::object{{"url", url}}}}),
                     {auth});
    if (channel.status != 201) {  // refused when saved is as good: nothing can be sent
      CHECK(channel.status == 422);
      continue;
    }
    const std::string id = field(parseObject(channel).at("notification_channel").as_object(), "id");
    auto tested = http.request("POST", base + "/notification-channels/" + id + "/test", "", {auth});
    REQUIRE(tested.status == 200);
    const auto body = parseObject(tested);
    CHECK_FALSE(body.at("ok").as_bool());
    CHECK_MESSAGE(field(body, "error").find("outbound policy") != std::string::npos, tested.body);
  }
  CHECK(hook.requests().empty());
}
