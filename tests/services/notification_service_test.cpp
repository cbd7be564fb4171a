// Notifications in process, over the memory store and the shared fake sender: an event and its
// deliveries (with their jobs) are written together; the delivery job sends once, retries, goes
// dead; templates reach the channel rendered; only_on_change across events; digests; the
// channel test and the deliveries list with their roles.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include <certsteward/services/expiration_check.hpp>
#include <certsteward/services/notification_dispatcher.hpp>
#include <certsteward/services/notification_job_handler.hpp>
#include <certsteward/services/notification_runner.hpp>
#include <certsteward/services/notification_service.hpp>
#include <certsteward/services/scheduler.hpp>
#include <certsteward/testing/fake_notification_sender.hpp>
#include <certsteward/testing/fakes.hpp>
#include "services/service_fixture.hpp"

using namespace certsteward;
using namespace certsteward::domain;
using namespace certsteward::services;
using namespace std::chrono_literals;

namespace {

struct NotifyFixture : testing::ServiceFixture {
  testing::FakeNotificationSender sender;
  NotificationOptions options{JobPolicy{3, 5min, 30s, 10min, 1s, 55s}, "https://certs.example.com",
                              5s};
  NotificationDispatcher dispatcher{
      {store.events(), store.notificationRules(), store.notificationChannels(),
       store.notificationDeliveries(), store.notificationStates(), store.jobs(),
       store.transactions(), store.projects(), ids, clock},
      options};
  NotificationRunner runner{
      {store.notificationDeliveries(), store.notificationChannels(), store.notificationRules(),
       store.jobs(), store.transactions(), store.projects(), sender, secrets, ids, clock},
      options};
  NotificationService service{
      {store.notificationChannels(), store.notificationDeliveries()}, runner, access, audit};
  std::vector<std::string> logged;

  NotifyFixture() { project("p1"); }

  Id channel(const std::string& kind, std::map<std::string, std::string> settings = {},
             const std::string& secret = "") {
    NotificationChannel c;
    c.id = ids.next();
    c.project_id = "p1";
    c.name = kind + " channel";
    c.kind = kind;
    c.settings = std::move(settings);
    if (!secret.empty()) c.secret_sealed = *secrets.seal(secret);
    REQUIRE(store.notificationChannels().create(c).ok());
    return c.id;
  }
  Id rule(std::vector<EventKind> events, std::vector<Id> channels,
          void (*change)(NotificationRule&) = nullptr) {
    NotificationRule r;
    r.id = ids.next();
    r.project_id = "p1";
    r.name = "rule";
    r.events = std::move(events);
    r.channel_ids = std::move(channels);
    r.created_at = r.updated_at = clock.now();
    if (change != nullptr) change(r);
    REQUIRE(store.notificationRules().create(r).ok());
    return r.id;
  }
  Event event(EventKind kind, const std::string& subject = "cert-1") {
    Event e;
    e.kind = kind;
    e.project_id = "p1";
    e.resource_id = subject;
    e.message = "www.example.com: renewal failed: NXDOMAIN";
    e.at = clock.now();
    e.details = {{"certificate.id", subject},
                 {"certificate.common_name", "www.example.com"},
                 {"reason", "NXDOMAIN"}};
    return e;
  }
  std::vector<NotificationDelivery> deliveries(const Id& channelId) {
    auto page = store.notificationDeliveries().listForChannel("p1", channelId, PageRequest{1, 100});
    REQUIRE(page.ok());
    return page->items;
  }
  // Runs the delivery's job once, as a worker of the notification lane would (its attempts
  // counted as claims count them).
  std::map<Id, int> attempts;
  Status runJob(const NotificationDelivery& d) {
    auto job = store.jobs().get("p1", d.job_id);
    REQUIRE(job.ok());
    REQUIRE(job->payload.at(kDeliveryIdPayload) == d.id);
    job->attempts = ++attempts[job->id];
    return runner.deliver(*job, [this](LogLevel, const std::string& m) { logged.push_back(m); });
  }
};

}  // namespace

TEST_CASE("notifications: an event, its deliveries and their jobs are written together") {
  NotifyFixture fx;
  const Id hook = fx.channel("webhook", {{"url", "https://hooks.example.com/x"}}, "sign-me");
  const Id mail = fx.channel(
      "email",
      {{"host", "smtp.example.com"}, {"from", "certs@example.com"}, {"to", "ops@example.com"}});
  fx.rule({EventKind::cert_renewal_failed}, {hook, mail});
  fx.rule({EventKind::cert_issued}, {hook});  // not concerned

  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::cert_renewal_failed)).ok());
  const auto events = fx.store.events().list("p1", PageRequest{1, 10});
  REQUIRE(events->items.size() == 1);
  const auto d = fx.deliveries(hook);
  REQUIRE(d.size() == 1);
  CHECK(fx.deliveries(mail).size() == 1);
  CHECK(d[0].status == DeliveryStatus::pending);
  CHECK(d[0].event == "cert.renewal_failed");
  CHECK(d[0].event_id == events->items[0].id);
  CHECK(d[0].variables.at("certificate.common_name") == "www.example.com");
  CHECK(d[0].variables.at("project.name") == "project p1");
  CHECK(d[0].variables.at("link") == "https://certs.example.com/projects/p1/certificates/cert-1");
  // Its job is on the notification lane and names it.
  auto job = fx.store.jobs().get("p1", d[0].job_id);
  REQUIRE(job.ok());
  CHECK(job->type == JobType::notification_delivery);
  CHECK(job->lane() == Lane::notification);
  CHECK(job->payload.at(kDeliveryIdPayload) == d[0].id);
  CHECK(job->max_attempts == 3);

  // An event no rule is concerned with is recorded, and nothing else.
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::distribution_failed, "dist-1")).ok());
  CHECK(fx.store.events().list("p1", PageRequest{1, 10})->items.size() == 2);
  CHECK(fx.deliveries(hook).size() == 1);
}

TEST_CASE(
    "notifications: disabled channels and removed ones get nothing, disabled rules send "
    "nothing") {
  NotifyFixture fx;
  const Id live = fx.channel("webhook", {{"url", "https://a.example.com/"}});
  const Id off = fx.channel("webhook", {{"url", "https://b.example.com/"}});
  auto c = *fx.store.notificationChannels().get("p1", off);
  c.enabled = false;
  REQUIRE(fx.store.notificationChannels().update(c).ok());
  fx.rule({EventKind::job_failed}, {live, off, "0123456789abcdef01234567"});
  fx.rule({EventKind::job_failed}, {live}, [](NotificationRule& r) { r.enabled = false; });
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-1")).ok());
  CHECK(fx.deliveries(live).size() == 1);
  CHECK(fx.deliveries(off).empty());
}

TEST_CASE("notifications: the delivery job sends once with the channel's templates and secret") {
  NotifyFixture fx;
  const Id hook =
      fx.channel("webhook",
                 {{"url", "https://hooks.example.com/x"},
                  {"subject_template", "{{certificate.common_name}} failed"},
                  {"body_template",
                   "{\"text\":\"{{message}}\",\"days\":\"{{days_left}}\",\"q\":\"{{reason}}\"}"}},
                 "sign-me");
  fx.rule({EventKind::cert_renewal_failed}, {hook});
  auto e = fx.event(EventKind::cert_renewal_failed);
  e.details["reason"] = "say \"hi\"\n";
  REQUIRE(fx.dispatcher.notify(e).ok());
  const auto d = fx.deliveries(hook).at(0);
  REQUIRE(fx.runJob(d).ok());
  const auto sent = fx.sender.sent();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].secret == "sign-me");
  CHECK(sent[0].message.delivery_id == d.id);
  CHECK(sent[0].message.subject == "www.example.com failed");
  CHECK(sent[0].message.body ==
        "{\"text\":\"www.example.com: renewal failed: NXDOMAIN\",\"days\":\"\",\"q\":\"say "
        "\\\"hi\\\"\\n\"}");
  const auto after = fx.deliveries(hook).at(0);
  CHECK(after.status == DeliveryStatus::sent);
  CHECK(after.attempts == 1);
  CHECK(after.sent_at.has_value());
  CHECK(after.last_error.empty());

  // The job run again (a crash after the send, before the job completed) sends nothing more.
  Job again = *fx.store.jobs().get("p1", d.job_id);
  REQUIRE(fx.runner.deliver(again, [](LogLevel, const std::string&) {}).ok());
  CHECK(fx.sender.sent().size() == 1);
}

TEST_CASE(
    "notifications: an attempt is counted before the send, and the next one is marked a "
    "redelivery") {
  NotifyFixture fx;
  const Id hook = fx.channel("webhook", {{"url", "https://hooks.example.com/x"}});
  fx.rule({EventKind::cert_renewal_failed}, {hook});
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::cert_renewal_failed)).ok());
  const auto d = fx.deliveries(hook).at(0);
  // An attempt that fails after it started: counted once.
  fx.sender.failNext(1, makeError(ErrorCode::unavailable, "connection reset"));
  CHECK_FALSE(fx.runJob(d).ok());
  auto now = *fx.store.notificationDeliveries().get("p1", d.id);
  CHECK(now.attempts == 1);
  CHECK(fx.sender.attempts() == 1);
  // The first message was not marked; the next attempt of the same delivery is.
  REQUIRE(fx.runJob(d).ok());
  const auto sent = fx.sender.sent();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].message.redelivery);
  CHECK(sent[0].message.delivery_id == d.id);
  now = *fx.store.notificationDeliveries().get("p1", d.id);
  CHECK(now.attempts == 2);
  CHECK(now.status == DeliveryStatus::sent);

  // A killed attempt (counted, never finished) makes the reclaimed one a redelivery too.
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::cert_renewal_failed, "cert-2")).ok());
  auto killed = fx.deliveries(hook).at(0);
  REQUIRE(killed.id != d.id);
  killed.attempts = 1;  // as the killed process left it
  REQUIRE(fx.store.notificationDeliveries().update(killed).ok());
  REQUIRE(fx.runJob(killed).ok());
  CHECK(fx.sender.sent().back().message.redelivery);
  CHECK(fx.store.notificationDeliveries().get("p1", killed.id)->attempts == 2);
  // A first attempt is not a redelivery.
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::cert_renewal_failed, "cert-3")).ok());
  REQUIRE(fx.runJob(fx.deliveries(hook).at(0)).ok());
  CHECK_FALSE(fx.sender.sent().back().message.redelivery);
}

TEST_CASE(
    "notifications: a receiver down for a while is retried, one down for good goes dead, a "
    "refusal is not retried") {
  NotifyFixture fx;
  const Id hook = fx.channel("webhook", {{"url", "https://hooks.example.com/x"}});
  fx.rule({EventKind::job_failed}, {hook});
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-1")).ok());
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-2")).ok());
  auto both = fx.deliveries(hook);  // newest first
  REQUIRE(both.size() == 2);
  const auto first = both[1];
  const auto second = both[0];

  fx.sender.failNext(1, makeError(ErrorCode::unavailable, "HTTP 503 from the receiver"));
  CHECK_FALSE(fx.runJob(first).ok());
  auto now = *fx.store.notificationDeliveries().get("p1", first.id);
  CHECK(now.status == DeliveryStatus::pending);
  CHECK(now.attempts == 1);
  CHECK(now.last_error == "HTTP 503 from the receiver");
  fx.sender.down(makeError(ErrorCode::unavailable, "HTTP 502 from the receiver"));
  CHECK_FALSE(fx.runJob(second).ok());
  fx.sender.up();
  REQUIRE(fx.runJob(first).ok());
  now = *fx.store.notificationDeliveries().get("p1", first.id);
  CHECK(now.status == DeliveryStatus::sent);
  CHECK(now.attempts == 2);
  CHECK(now.last_error.empty());

  // Down for good: the second runs out of its 3 attempts and is listed dead with the error.
  fx.sender.down(makeError(ErrorCode::unavailable, "HTTP 502 from the receiver"));
  fx.clock.advance(10min);
  CHECK_FALSE(fx.runJob(second).ok());
  CHECK(fx.store.notificationDeliveries().get("p1", second.id)->status == DeliveryStatus::pending);
  fx.clock.advance(10min);
  CHECK_FALSE(fx.runJob(second).ok());
  now = *fx.store.notificationDeliveries().get("p1", second.id);
  CHECK(now.status == DeliveryStatus::dead);
  CHECK(now.attempts == 3);
  CHECK(now.last_error == "HTTP 502 from the receiver");

  // Refused for good (a revoked webhook): dead at once, and the job ends without retrying.
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-3")).ok());
  const auto third = fx.deliveries(hook).at(0);
  fx.sender.down(makeError(ErrorCode::failed_precondition, "HTTP 410 from the receiver"));
  CHECK(fx.runJob(third).ok());
  now = *fx.store.notificationDeliveries().get("p1", third.id);
  CHECK(now.status == DeliveryStatus::dead);
  CHECK(now.attempts == 1);
  CHECK(now.last_error == "HTTP 410 from the receiver");
}

TEST_CASE("notifications: only_on_change tells a failure once and its recovery once") {
  NotifyFixture fx;
  const Id hook = fx.channel("webhook", {{"url", "https://hooks.example.com/x"}});
  fx.rule({EventKind::cert_renewal_failed}, {hook},
          [](NotificationRule& r) { r.only_on_change = true; });
  for (auto kind :
       {EventKind::cert_renewal_failed, EventKind::cert_renewal_failed, EventKind::cert_renewed,
        EventKind::cert_renewed, EventKind::cert_renewal_failed}) {
    REQUIRE(fx.dispatcher.notify(fx.event(kind)).ok());
  }
  const auto d = fx.deliveries(hook);  // newest first
  REQUIRE(d.size() == 3);
  CHECK(d[2].event == "cert.renewal_failed");
  CHECK_FALSE(d[2].recovery);
  CHECK(d[1].event == "cert.renewed");
  CHECK(d[1].recovery);
  CHECK(d[1].variables.at("recovery") == "true");
  CHECK(d[0].event == "cert.renewal_failed");
  const auto rendered =
      NotificationRunner::render(*fx.store.notificationChannels().get("p1", hook), d[1]);
  CHECK(rendered.subject == "[CertSteward] recovered: www.example.com (project p1)");
}

TEST_CASE("notifications: a digest rule holds its messages and sends one digest a day") {
  NotifyFixture fx;
  fx.clock.set(fromUnixSeconds(1'800'000'000));  // 2027-01-15T08:00:00Z
  const Id hook = fx.channel("webhook", {{"url", "https://hooks.example.com/x"}});
  const Id mail = fx.channel(
      "email",
      {{"host", "smtp.example.com"}, {"from", "certs@example.com"}, {"to", "ops@example.com"}});
  const Id ruleId = fx.rule({EventKind::cert_expiring_soon, EventKind::job_failed}, {hook, mail},
                            [](NotificationRule& r) {
                              r.mode = kRuleModeDigest;
                              r.digest_time = "09:30";
                            });
  auto soon = fx.event(EventKind::cert_expiring_soon);
  soon.details["days_left"] = "6";
  soon.details["certificate.expires_at"] = "2027-01-21T08:00:00.000Z";
  REQUIRE(fx.dispatcher.notify(soon).ok());
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-9")).ok());
  auto held = fx.store.notificationDeliveries().heldForRule("p1", ruleId, 100);
  REQUIRE(held->size() == 4);  // two events, two channels
  for (const auto& h : *held)
    CHECK(h.job_id.empty());

  auto rule = *fx.store.notificationRules().get("p1", ruleId);
  CHECK(*fx.runner.digestIfDue(rule) == 0);  // 08:00, the digest is at 09:30
  fx.clock.advance(90min);
  CHECK(*fx.runner.digestIfDue(rule) == 2);  // one per channel
  CHECK(fx.store.notificationDeliveries().heldForRule("p1", ruleId, 100)->empty());
  rule = *fx.store.notificationRules().get("p1", ruleId);
  CHECK(*fx.runner.digestIfDue(rule) == 0);  // once a day
  REQUIRE(rule.last_digest_at.has_value());

  const auto digest = fx.deliveries(hook).at(0);
  CHECK(digest.event == "digest");
  CHECK(digest.items.size() == 2);
  REQUIRE(fx.runJob(digest).ok() == true);
  const auto sent = fx.sender.sent();
  REQUIRE(sent.size() == 1);
  CHECK(sent[0].message.text.find("2 notification(s) since the last digest") != std::string::npos);
  CHECK(sent[0].message.text.find("expires in 6 day(s): www.example.com") != std::string::npos);
  for (const auto& item : fx.deliveries(hook)) {
    if (item.id == digest.id) continue;
    CHECK(item.status == DeliveryStatus::digested);
    CHECK(item.digest_id == digest.id);
  }
  fx.clock.advance(1440min);  // the next day at 09:30
  rule = *fx.store.notificationRules().get("p1", ruleId);
  CHECK(digestDue(rule, fx.clock.now()));
  CHECK(*fx.runner.digestIfDue(rule) == 0);  // nothing held: no empty digest
}

TEST_CASE("notifications: the channel test sends now and says what the server said, by role") {
  NotifyFixture fx;
  const Id hook = fx.channel("webhook", {{"url", "https://hooks.example.com/x"}});
  const auto viewer = fx.member("p1", ProjectRole::viewer);
  const auto admin = fx.member("p1", ProjectRole::admin);

  auto ok = fx.service.test(admin, fx.ctx(), "p1", hook);
  REQUIRE(ok.ok());
  CHECK(ok->status == DeliveryStatus::sent);
  CHECK(ok->event == "test");
  REQUIRE(fx.sender.sent().size() == 1);
  CHECK(fx.sender.sent()[0].message.subject.find("test") != std::string::npos);
  CHECK(fx.audited("notification_channel.test").size() == 1);

  fx.sender.down(makeError(ErrorCode::failed_precondition, "535 5.7.8 authentication failed"));
  auto refused = fx.service.test(admin, fx.ctx(), "p1", hook);
  REQUIRE(refused.ok());
  CHECK(refused->status == DeliveryStatus::dead);
  CHECK(refused->last_error == "535 5.7.8 authentication failed");

  CHECK(fx.service.test(viewer, fx.ctx(), "p1", hook).error().code == ErrorCode::permission_denied);
  CHECK(fx.service.test(admin, fx.ctx(), "p1", "0123456789abcdef01234567").error().code ==
        ErrorCode::not_found);
  auto c = *fx.store.notificationChannels().get("p1", hook);
  c.enabled = false;
  REQUIRE(fx.store.notificationChannels().update(c).ok());
  CHECK(fx.service.test(admin, fx.ctx(), "p1", hook).error().code ==
        ErrorCode::failed_precondition);

  // Viewers read the deliveries, newest first; another project's channel is not found.
  auto page = fx.service.deliveries(viewer, "p1", hook, PageRequest{1, 10});
  REQUIRE(page.ok());
  REQUIRE(page->total == 2);
  CHECK(page->items[0].status == DeliveryStatus::dead);
  fx.project("p2");
  const auto outsider = fx.member("p2", ProjectRole::admin);
  CHECK(fx.service.deliveries(outsider, "p1", hook, PageRequest{1, 10}).error().code ==
        ErrorCode::not_found);
}

TEST_CASE("notifications: a digest whose time passed before midnight goes out on a late sweep") {
  NotificationRule r;
  r.mode = kRuleModeDigest;
  r.digest_time = "23:30";
  const auto day = fromUnixSeconds(1'800'000'000 - 1'800'000'000 % 86400);  // 00:00 UTC
  CHECK(digestDue(r, day + 23h + 10min));  // never sent: yesterday's 23:30 counts
  r.last_digest_at = day - 1h;             // yesterday 23:00 (before yesterday's 23:30)
  CHECK(digestDue(r, day + 10min));        // the sweep after midnight still finds yesterday's
  r.last_digest_at = day - 20min;          // yesterday's sent at 23:40
  CHECK_FALSE(digestDue(r, day + 10min));
  CHECK_FALSE(digestDue(r, day + 23h + 10min));
  CHECK(digestDue(r, day + 23h + 40min));
  r.mode = kRuleModeEach;
  CHECK_FALSE(digestDue(r, day + 23h + 40min));
}

TEST_CASE("notifications: the expiry check looks as far ahead as the largest threshold") {
  NotifyFixture fx;
  const Id hook = fx.channel("webhook", {{"url", "https://hooks.example.com/x"}});
  CHECK(*fx.runner.expiryLookahead("p1", std::chrono::days{14}) == std::chrono::days{14});
  fx.rule({EventKind::cert_expiring_soon}, {hook});  // 30, 14, 7, 3, 1
  CHECK(*fx.runner.expiryLookahead("p1", std::chrono::days{14}) == std::chrono::days{30});
  fx.rule({EventKind::cert_expiring_soon}, {hook},
          [](NotificationRule& r) { r.thresholds_days = {60}; });
  fx.rule({EventKind::cert_expiring_soon}, {hook}, [](NotificationRule& r) {
    r.thresholds_days = {90};
    r.enabled = false;
  });
  CHECK(*fx.runner.expiryLookahead("p1", std::chrono::days{14}) == std::chrono::days{60});
}

TEST_CASE("notifications: a rule switched from digest back to each sends what it held at once") {
  NotifyFixture fx;
  const Id hook = fx.channel("webhook", {{"url", "https://hooks.example.com/x"}});
  const Id ruleId = fx.rule({EventKind::job_failed}, {hook}, [](NotificationRule& r) {
    r.mode = kRuleModeDigest;
    r.digest_time = "23:59";
  });
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-1")).ok());
  auto rule = *fx.store.notificationRules().get("p1", ruleId);
  CHECK(*fx.runner.digestIfDue(rule) == 0);  // not its time yet
  rule.mode = kRuleModeEach;
  REQUIRE(fx.store.notificationRules().update(rule).ok());
  CHECK(*fx.runner.digestIfDue(rule) == 1);
  CHECK(fx.store.notificationDeliveries().heldForRule("p1", ruleId, 10)->empty());
  CHECK(*fx.runner.digestIfDue(rule) == 0);  // nothing held any more
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-2")).ok());
  CHECK(fx.deliveries(hook).at(0).status == DeliveryStatus::pending);  // each: sent on its own
}

TEST_CASE("notifications: the scheduler's sweep sends the day's digests, once") {
  NotifyFixture fx;
  fx.clock.set(fromUnixSeconds(1'800'000'000));  // 2027-01-15T08:00:00Z
  const Id hook = fx.channel("webhook", {{"url", "https://hooks.example.com/x"}});
  const Id ruleId = fx.rule({EventKind::job_failed}, {hook}, [](NotificationRule& r) {
    r.mode = kRuleModeDigest;
    r.digest_time = "09:30";
  });
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-1")).ok());
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-2")).ok());
  Scheduler scheduler{
      {fx.store.leaderLock(), fx.store.certificates(), fx.store.jobs(), fx.ids, fx.clock,
       fx.store.projects(), fx.store.settings(), &fx.store.notificationRules(), &fx.runner},
      SchedulerOptions{}};
  auto early = scheduler.sweep();
  REQUIRE(early.ok());
  CHECK(early->digests == 0);  // 08:00: not yet
  fx.clock.advance(95min);
  auto due = scheduler.sweep();
  REQUIRE(due.ok());
  CHECK(due->digests == 1);
  const auto digest = fx.deliveries(hook).at(0);
  CHECK(digest.event == "digest");
  CHECK(digest.items.size() == 2);
  CHECK_FALSE(digest.job_id.empty());  // queued on the notification lane
  CHECK(fx.store.notificationDeliveries().heldForRule("p1", ruleId, 100)->empty());
  auto again = scheduler.sweep();  // a second sweep (or leader) the same day
  REQUIRE(again.ok());
  CHECK(again->digests == 0);
}

TEST_CASE("notifications: a delivery whose worker was lost on its last attempt is dead, in words") {
  NotifyFixture fx;
  const Id hook = fx.channel("webhook", {{"url", "https://hooks.example.com/x"}});
  fx.rule({EventKind::job_failed}, {hook});
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-1")).ok());
  const auto delivery = fx.deliveries(hook).at(0);
  auto job = *fx.store.jobs().get("p1", delivery.job_id);
  REQUIRE(fx.runner.abandon(job, "the worker was lost on its last attempt").ok());
  const auto after = fx.deliveries(hook).at(0);
  CHECK(after.status == DeliveryStatus::dead);
  CHECK(after.last_error == "the worker was lost on its last attempt");
  // A delivery already sent stays sent.
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-2")).ok());
  auto sentOne = fx.deliveries(hook).at(0);
  REQUIRE(fx.runJob(sentOne).ok());
  auto sentJob = *fx.store.jobs().get("p1", sentOne.job_id);
  REQUIRE(fx.runner.abandon(sentJob, "late").ok());
  CHECK(fx.deliveries(hook).at(0).status == DeliveryStatus::sent);
}

TEST_CASE("notifications: the expiry check itself reaches as far as a rule's largest threshold") {
  NotifyFixture fx;
  const Id hook = fx.channel("webhook", {{"url", "https://hooks.example.com/x"}});
  const auto inDays = [&](int days, const char* name) {
    Certificate c;
    c.id = fx.ids.next();
    c.project_id = "p1";
    c.common_name = name;
    c.sans = {name};
    c.status = CertificateStatus::active;
    c.expires_at = fx.clock.now() + std::chrono::days{days};
    REQUIRE(fx.store.certificates().create(c).ok());
  };
  inDays(10, "soon.example.com");
  inDays(45, "later.example.com");
  inDays(90, "far.example.com");
  testing::RecordingNotifierFake notifier;
  ExpirationCheck check{
      {fx.store.certificates(), fx.store.jobs(), notifier, fx.ids, fx.clock, &fx.runner},
      CertificatePolicy{},
      JobPolicy{}};
  const Job job =
      newJob(fx.ids.next(), "p1", JobType::certificate_expiration_check, fx.clock.now());
  const auto named = [&] {
    std::set<std::string> out;
    for (const auto& e : notifier.events())
      out.insert(e.details.at("certificate.common_name"));
    return out;
  };
  REQUIRE(check.run(job, [](LogLevel, const std::string&) {}).ok());
  CHECK(named() == std::set<std::string>{"soon.example.com"});  // 14 days without a rule
  fx.rule({EventKind::cert_expiring_soon}, {hook}, [](NotificationRule& r) {
    r.thresholds_days = {60, 7};
  });
  REQUIRE(check.run(job, [](LogLevel, const std::string&) {}).ok());
  CHECK(named() == std::set<std::string>{"soon.example.com", "later.example.com"});
}

TEST_CASE("notification job handler: runs deliveries, closes only a delivery whose job died") {
  NotifyFixture fx;
  NotificationJobHandler handler{fx.runner};
  CHECK(handler.types() == std::vector<JobType>{JobType::notification_delivery});
  const Id hook = fx.channel("webhook", {{"url", "https://hooks.example.com/x"}});
  fx.rule({EventKind::job_failed}, {hook});
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-1")).ok());
  auto job = *fx.store.jobs().get("p1", fx.deliveries(hook).at(0).job_id);
  // Lost but cancelled, not dead: the delivery is left as it is.
  job.status = JobStatus::cancelled;
  handler.abandoned(job, [](LogLevel, const std::string&) {});
  CHECK(fx.deliveries(hook).at(0).status != DeliveryStatus::dead);
  job.status = JobStatus::dead;
  job.error_msg = "lease expired";
  handler.abandoned(job, [](LogLevel, const std::string&) {});
  const auto after = fx.deliveries(hook).at(0);
  CHECK(after.status == DeliveryStatus::dead);
  CHECK(after.last_error == "its worker was lost on the last attempt: lease expired");
  // An attempt is the runner's delivery: a new one is sent through its channel.
  REQUIRE(fx.dispatcher.notify(fx.event(EventKind::job_failed, "job-2")).ok());
  const auto fresh = fx.deliveries(hook).at(0);
  REQUIRE(fresh.status != DeliveryStatus::sent);
  StopSignal stop;
  AttemptNotes notes;
  std::vector<std::string> lines;
  REQUIRE(handler
              .attempt(
                  *fx.store.jobs().get("p1", fresh.job_id), stop,
                  [&](LogLevel, const std::string& m) { lines.push_back(m); }, notes)
              .ok());
  CHECK_FALSE(notes.deferred);
  CHECK(fx.deliveries(hook).at(0).status == DeliveryStatus::sent);
  CHECK_FALSE(lines.empty());  // the job log hears of it
}
