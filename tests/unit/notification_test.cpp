// Notification rules as implemented: which events a rule concerns, the certificate pattern,
// only_on_change (a failure once per subject, its recovery once), expiry thresholds (once per
// threshold and expiry), the rule's own checks; templates (unknown variables refused at save,
// escaping per target) and every channel kind's settings.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <certsteward/domain/job.hpp>
#include <certsteward/domain/notification_rules.hpp>
#include <certsteward/domain/notification_settings.hpp>
#include <certsteward/domain/template.hpp>

using namespace certsteward::domain;

namespace {

NotificationRule rule(std::vector<EventKind> events, bool onlyOnChange = false) {
  NotificationRule r;
  r.id = "r1";
  r.project_id = "p1";
  r.events = std::move(events);
  r.only_on_change = onlyOnChange;
  return r;
}

Event event(EventKind kind, const std::string& subject = "c1",
            std::map<std::string, std::string> details = {}) {
  Event e;
  e.id = "e1";
  e.kind = kind;
  e.project_id = "p1";
  e.resource_id = subject;
  e.message = "something happened";
  e.at = fromUnixSeconds(1'800'000'000);
  e.details = std::move(details);
  if (!e.details.count("certificate.common_name"))
    e.details["certificate.common_name"] = "www.example.com";
  return e;
}

// Runs events through one rule as the dispatcher does (remembering its state); returns which
// were sent ('S'), sent as a recovery ('R') or not ('-').
std::string run(const NotificationRule& r, const std::vector<Event>& events) {
  std::map<Id, NotificationState> states;
  std::string out;
  for (const auto& e : events) {
    const auto it = states.find(subjectOf(e));
    const auto d = decide(
        r, e, it == states.end() ? std::nullopt : std::optional<NotificationState>(it->second));
    if (d.remember) states[subjectOf(e)] = *d.remember;
    out += d.send ? (d.recovery ? 'R' : 'S') : '-';
  }
  return out;
}

Event expiring(long daysLeft, const std::string& expires = "2027-01-01T00:00:00Z") {
  return event(EventKind::cert_expiring_soon, "c1",
               {{"days_left", std::to_string(daysLeft)}, {"certificate.expires_at", expires}});
}

}  // namespace

TEST_CASE("notification rules: which events each kind of rule sends, in order") {
  const auto failed = event(EventKind::cert_renewal_failed);
  const auto renewed = event(EventKind::cert_renewed);
  const auto jobDead = event(EventKind::job_failed);
  // A renewal job's death: its certificate's cert.renewal_failed tells the same failure.
  const auto renewalDead =
      event(EventKind::job_failed, "c1", {{"job.type", "renew_certificate"}, {"job.id", "j1"}});
  const auto issueDead =
      event(EventKind::job_failed, "c1", {{"job.type", "issue_certificate"}, {"job.id", "j2"}});
  const auto otherCert = event(EventKind::cert_renewal_failed, "c2");
  const auto distFailed = event(EventKind::distribution_failed, "d1");
  const auto distOk = event(EventKind::distribution_succeeded, "d1");
  struct Row {
    const char* name;
    NotificationRule rule;
    std::vector<Event> events;
    const char* sent;
  };
  const std::vector<Row> rows = {
      {"every failure, no memory",
       rule({EventKind::cert_renewal_failed}),
       {failed, failed, renewed, failed},
       "SS-S"},
      {"only on change: once, then the recovery once",
       rule({EventKind::cert_renewal_failed}, true),
       {failed, failed, renewed, renewed, failed},
       "S-R-S"},
      {"only on change: each subject on its own",
       rule({EventKind::cert_renewal_failed}, true),
       {failed, otherCert, failed, otherCert},
       "SS--"},
      {"subscribed to the news too: recovery once, then news",
       rule({EventKind::cert_renewal_failed, EventKind::cert_renewed}, true),
       {renewed, failed, renewed, renewed},
       "SSRS"},
      {"news without a failure before is not a recovery",
       rule({EventKind::cert_renewed}, true),
       {renewed, failed},
       "S-"},
      {"job.failed and renewal failure are each said once, one recovery ends both",
       rule({EventKind::job_failed, EventKind::cert_renewal_failed}, true),
       {jobDead, failed, jobDead, renewed},
       "SS-R"},
      {"one renewal failure, one message: the certificate event for a rule selecting both",
       rule({EventKind::job_failed, EventKind::cert_renewal_failed}),
       {renewalDead, failed, issueDead},
       "-SS"},
      {"one renewal failure, one message, also only on change; the recovery once",
       rule({EventKind::job_failed, EventKind::cert_renewal_failed}, true),
       {renewalDead, failed, renewalDead, failed, renewed},
       "-S--R"},
      {"a rule selecting only job.failed still hears of a renewal's death",
       rule({EventKind::job_failed}),
       {renewalDead, failed},
       "S-"},
      {"distributions recover by distribution.succeeded",
       rule({EventKind::distribution_failed}, true),
       {distFailed, distFailed, distOk, distOk},
       "S-R-"},
      {"a disabled rule sends nothing",
       [] {
         auto r = rule({EventKind::cert_renewal_failed});
         r.enabled = false;
         return r;
       }(),
       {failed},
       "-"},
      {"without only_on_change the news it does not subscribe to is ignored",
       rule({EventKind::cert_renewal_failed}),
       {renewed},
       "-"},
  };
  for (const auto& row : rows) {
    const std::string name = row.name;
    CAPTURE(name);
    CHECK(run(row.rule, row.events) == row.sent);
  }
}

TEST_CASE("notification rules: cert.expiring_soon once per threshold crossed and per expiry") {
  const auto r = rule({EventKind::cert_expiring_soon});  // 30, 14, 7, 3, 1
  // Daily events from 35 days out: one message at 30, 14, 7, 3 and 1 days, none in between.
  std::vector<Event> daily;
  for (long d = 35; d >= -2; --d)
    daily.push_back(expiring(d));
  const auto sent = run(r, daily);
  CHECK(std::count(sent.begin(), sent.end(), 'S') == 5);
  CHECK(sent.substr(0, 5) == "-----");  // 35..31 days: no threshold crossed
  CHECK(sent[5] == 'S');                // 30
  CHECK(sent[35 - 14] == 'S');
  CHECK(sent[35 - 1] == 'S');
  CHECK(sent.substr(35) == "---");  // 0, -1, -2: threshold 1 was said already

  // A renewed certificate (another expiry) starts over; a jump skips thresholds at once.
  CHECK(run(r, {expiring(20), expiring(20, "2027-04-01T00:00:00Z")}) == "SS");
  CHECK(run(r, {expiring(40), expiring(5), expiring(4), expiring(2)}) == "-S-S");
  auto custom = r;
  custom.thresholds_days = {10};
  CHECK(run(custom, {expiring(12), expiring(10), expiring(1)}) == "-S-");
  CHECK(crossedThreshold({30, 14, 7}, 15) == 30);
  CHECK(crossedThreshold({30, 14, 7}, 14) == 14);
  CHECK(crossedThreshold({30, 14, 7}, -3) == 7);
  CHECK_FALSE(crossedThreshold({30, 14, 7}, 31));
}

TEST_CASE("notification rules: the certificate pattern") {
  struct Row {
    const char* pattern;
    const char* name;
    bool matches;
  };
  for (const auto& row : std::vector<Row>{{"", "anything.example.com", true},
                                          {"*.example.com", "www.example.com", true},
                                          {"*.example.com", "example.com", false},
                                          {"*.EXAMPLE.com", "api.Example.COM", true},
                                          {"www.*.com", "www.shop.com", true},
                                          {"*", "x", true},
                                          {"a*b*c", "axxbyyc", true},
                                          {"a*b*c", "axxbyy", false},
                                          {"api.example.com", "www.example.com", false}}) {
    const std::string pattern = row.pattern;
    const std::string name = row.name;
    CAPTURE(pattern);
    CAPTURE(name);
    CHECK(matchesPattern(row.pattern, row.name) == row.matches);
  }
  // Hostile input stays linear: many stars against a long near-miss.
  CHECK_FALSE(matchesPattern(std::string(100, '*') + "b", std::string(5000, 'a')));

  auto r = rule({EventKind::cert_renewal_failed});
  r.certificate_pattern = "*.prod.example.com";
  CHECK(run(r, {event(EventKind::cert_renewal_failed, "c1",
                      {{"certificate.common_name", "api.prod.example.com"}}),
                event(EventKind::cert_renewal_failed, "c2",
                      {{"certificate.common_name", "api.dev.example.com"}})}) == "S-");
}

TEST_CASE("notification rules: the fields of a rule are checked") {
  struct Row {
    const char* name;
    void (*change)(NotificationRule&);
    const char* error;  // "" when valid
  };
  const std::vector<Row> rows = {
      {"defaults", [](NotificationRule&) {}, ""},
      {"digest at 23:59",
       [](NotificationRule& r) {
         r.mode = "digest";
         r.digest_time = "23:59";
       },
       ""},
      {"unknown mode", [](NotificationRule& r) { r.mode = "weekly"; }, "unknown mode"},
      {"digest time 24:00", [](NotificationRule& r) { r.digest_time = "24:00"; }, "digest_time"},
      {"digest time 8:00", [](NotificationRule& r) { r.digest_time = "8:00"; }, "digest_time"},
      {"threshold 0",
       [](NotificationRule& r) {
         r.thresholds_days = {30, 0};
       },
       "thresholds_days"},
      {"threshold 366", [](NotificationRule& r) { r.thresholds_days = {366}; }, "thresholds_days"},
      {"no thresholds", [](NotificationRule& r) { r.thresholds_days.clear(); }, "thresholds_days"},
      {"pattern with a space", [](NotificationRule& r) { r.certificate_pattern = "a b"; },
       "certificate_pattern"},
      {"pattern with a newline", [](NotificationRule& r) { r.certificate_pattern = "a\nb"; },
       "certificate_pattern"},
  };
  for (const auto& row : rows) {
    const std::string name = row.name;
    CAPTURE(name);
    auto r = rule({EventKind::job_failed});
    row.change(r);
    const auto s = checkRuleFields(r);
    if (std::string(row.error).empty()) {
      CHECK(s.ok());
    } else {
      REQUIRE_FALSE(s.ok());
      CHECK(s.error().message.find(row.error) != std::string::npos);
    }
  }
}

TEST_CASE("templates: variables are replaced and escaped for where they go, unknown ones refused") {
  const std::map<std::string, std::string> vars{
      {"certificate.common_name", "<b>\"x\" & 'y'</b>"}, {"days_left", "7"}, {"reason", "a\nb\\"}};
  CHECK(renderTemplate("{{certificate.common_name}} in {{ days_left }}d", vars, Escape::none) ==
        "<b>\"x\" & 'y'</b> in 7d");
  CHECK(renderTemplate("{{certificate.common_name}}", vars, Escape::html) ==
        "&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;&lt;/b&gt;");
  CHECK(renderTemplate("{\"text\":\"{{reason}} {{certificate.common_name}}\"}", vars,
                       Escape::json) == "{\"text\":\"a\\nb\\\\ <b>\\\"x\\\" & 'y'</b>\"}");
  // A value that looks like a template is not interpreted again; absent variables are empty.
  CHECK(renderTemplate("{{reason}}{{link}}", {{"reason", "{{days_left}}"}}, Escape::none) ==
        "{{days_left}}");
  CHECK(escapeJsonString(std::string("\x01\x7f", 2)) == "\\u0001\\u007f");

  CHECK(checkTemplate("body_template", "Expires {{certificate.expires_at}} ({{days_left}})").ok());
  CHECK(checkTemplate("body_template", "no variables at all").ok());
  const auto unknown = checkTemplate("settings.body_template", "{{certificate.private_key}}");
  REQUIRE_FALSE(unknown.ok());
  CHECK(unknown.error().code == ErrorCode::invalid_argument);
  CHECK(unknown.error().message.find("certificate.private_key") != std::string::npos);
  CHECK(unknown.error().message.find("settings.body_template") != std::string::npos);
  CHECK_FALSE(checkTemplate("t", "{{days_left").ok());
  CHECK_FALSE(checkTemplate("t", "{{}}").ok());
  CHECK_FALSE(checkTemplate("t", std::string(17 * 1024, 'x')).ok());
}

TEST_CASE("notification channels: the settings of every kind") {
  struct Row {
    const char* name;
    const char* kind;
    std::map<std::string, std::string> settings;
    bool secret;
    const char* error;  // "" when valid; else a word of the message
  };
  const std::map<std::string, std::string> mail{
      {"host", "smtp.example.com"}, {"from", "certs@example.com"}, {"to", "ops@example.com"}};
  auto with = [](std::map<std::string, std::string> m, const std::string& k, const std::string& v) {
    m[k] = v;
    return m;
  };
  const std::vector<Row> rows = {
      {"email", "email", mail, true, ""},
      {"email, two recipients", "email", with(mail, "to", "a@x.example, b@y.example"), false, ""},
      {"email, tls none to loopback", "email", with(with(mail, "host", "127.0.0.1"), "tls", "none"),
       false, ""},
      {"email, tls none elsewhere", "email", with(mail, "tls", "none"), false, "loopback"},
      {"email, unknown tls", "email", with(mail, "tls", "ssl3"), false, "settings.tls"},
      {"email, no recipients", "email", with(mail, "to", " , "), false, "settings.to"},
      {"email, bad recipient", "email", with(mail, "to", "ops@example.com, <evil>@x"), false,
       "settings.to"},
      {"email, header injection in from", "email",
       with(mail, "from", "a@b.example\r\nBcc: x@y.example"), false, "settings.from"},
      {"email, port 0", "email", with(mail, "port", "0"), false, "settings.port"},
      {"email, missing host",
       "email",
       {{"from", "a@b.example"}, {"to", "c@d.example"}},
       false,
       "settings.host is required"},
      {"email, unknown setting", "email", with(mail, "cc", "x@y.example"), false, "settings.cc"},
      {"webhook https", "webhook", {{"url", "https://hooks.example.com/x"}}, false, ""},
      {"webhook http loopback", "webhook", {{"url", "http://127.0.0.1:9000/hook"}}, false, ""},
      {"webhook http elsewhere",
       "webhook",
       {{"url", "http://hooks.example.com/x"}},
       false,
       "settings.url"},
      {"webhook user info",
       "webhook",
       {{"url", "https://u:p@hooks.example.com/"}},
       false,
       "settings.url"},
      {"webhook headers",
       "webhook",
       {{"url", "https://h.example.com/"}, {"headers", "Authorization: Bearer x\nX-Team: ops"}},
       false,
       ""},
      {"webhook header overriding the signature",
       "webhook",
       {{"url", "https://h.example.com/"}, {"headers", "X-CertSteward-Signature: forged"}},
       false,
       "settings.headers"},
      {"webhook header name with a space",
       "webhook",
       {{"url", "https://h.example.com/"}, {"headers", "Bad Name: x"}},
       false,
       "settings.headers"},
      {"webhook template with an unknown variable",
       "webhook",
       {{"url", "https://h.example.com/"}, {"body_template", "{\"t\":\"{{secret}}\"}"}},
       false,
       "unknown variable"},
      {"webhook ca_bundle that is not PEM",
       "webhook",
       {{"url", "https://h.example.com/"}, {"ca_bundle", "not a certificate"}},
       false,
       "settings.ca_bundle"},
      {"webhook with a secret header",
       "webhook",
       {{"url", "https://ntfy.example.com/certs"}, {"secret_header", "Authorization"}},
       true,
       ""},
      {"webhook secret header without a secret",
       "webhook",
       {{"url", "https://ntfy.example.com/certs"}, {"secret_header", "Authorization"}},
       false,
       "settings.secret_header"},
      {"webhook secret header that is the signature",
       "webhook",
       {{"url", "https://ntfy.example.com/certs"}, {"secret_header", "X-CertSteward-Signature"}},
       true,
       "settings.secret_header"},
      {"slack with its URL as the secret", "slack", {}, true, ""},
      {"slack without a secret", "slack", {}, false, "secret"},
      {"slack with a url setting",
       "slack",
       {{"url", "https://hooks.slack.com/x"}},
       true,
       "settings.url"},
      {"teams", "teams", {}, true, ""},
      {"discord", "discord", {{"subject_template", "{{event}}"}}, true, ""},
      {"telegram", "telegram", {{"chat_id", "-100123"}}, true, ""},
      {"telegram channel name", "telegram", {{"chat_id", "@certs_ops"}}, true, ""},
      {"telegram bad chat", "telegram", {{"chat_id", "abc"}}, true, "settings.chat_id"},
      {"telegram without token", "telegram", {{"chat_id", "1"}}, false, "bot token"},
      {"telegram api on loopback",
       "telegram",
       {{"chat_id", "1"}, {"api_base_url", "http://127.0.0.1:8081"}},
       true,
       ""},
      {"unknown kind", "pager", {}, false, "unknown kind"},
  };
  for (const auto& row : rows) {
    const std::string name = row.name;
    CAPTURE(name);
    NotificationChannel c;
    c.kind = row.kind;
    c.settings = row.settings;
    const auto s = checkChannel(c, row.secret);
    if (std::string(row.error).empty()) {
      CHECK_MESSAGE(s.ok(), (s.ok() ? "" : s.error().message));
    } else {
      REQUIRE_FALSE(s.ok());
      CHECK(s.error().code == ErrorCode::invalid_argument);
      CHECK_MESSAGE(s.error().message.find(row.error) != std::string::npos, s.error().message);
    }
  }
  NotificationChannel unknownKind;
  unknownKind.kind = "pager";
  CHECK(checkChannel(unknownKind, false).error().reason == kMalformed);  // 400, not 422
  NotificationChannel two;
  two.settings = {{"to", " a@x.example ,b@y.example,, "}};
  CHECK(emailRecipients(two) == std::vector<std::string>{"a@x.example", "b@y.example"});
}

TEST_CASE("notification messages: default wording names what happened") {
  auto e = event(EventKind::cert_renewal_failed);
  e.details["project.name"] = "shop";
  e.details["reason"] = "NXDOMAIN";
  const auto vars = messageVariables(e, false);
  CHECK(vars.at("event") == "cert.renewal_failed");
  CHECK(vars.at("recovery") == "false");
  CHECK(defaultSubject(vars, false) == "[CertSteward] cert.renewal_failed: www.example.com (shop)");
  CHECK(defaultSubject(vars, true) == "[CertSteward] recovered: www.example.com (shop)");
  const auto text = defaultText(vars, false);
  CHECK(text.find("reason: NXDOMAIN") != std::string::npos);
  CHECK(text.find("something happened") != std::string::npos);
  auto soon = expiring(7);
  CHECK(defaultSubject(messageVariables(soon, false), false) ==
        "[CertSteward] expires in 7 day(s): www.example.com");
}

TEST_CASE("notification deliveries: a dead delivery job raises no job.failed, other jobs do") {
  for (auto type : {JobType::notification_delivery, JobType::renew_certificate}) {
    Job job = newJob("j1", "p1", type, fromUnixSeconds(1'800'000'000), JobPolicy{});
    job.status = JobStatus::active;
    job.locked_by = "w1";
    job.attempts = job.max_attempts;
    const auto raised = applyJobEvent(
        job, JobEvent::fail, JobContext{fromUnixSeconds(1'800'000'000), "w1", "refused", {}});
    REQUIRE(raised.ok());
    CHECK(job.status == JobStatus::dead);
    CHECK(raised->has_value() == (type != JobType::notification_delivery));
  }
  CHECK(laneOf(JobType::notification_delivery) == Lane::notification);
  CHECK(nameOf(Lane::notification) == "notification");
}

TEST_CASE("notification channels: a secret that cannot work for its kind is refused, unquoted") {
  struct Row {
    const char* kind;
    const char* secret;
    bool ok;
  };
  for (const auto& row : std::vector<Row>{
           {"slack", "https://hooks.slack.com/services/T0/B0/abc", true},
           {"slack", "http://hooks.slack.com/services/T0/B0/abc", false},
           {"discord", "http://127.0.0.1:9000/webhook", true},
           {"teams", "not a url at all", false},
           {"telegram", "123456:ABC-def_ghi", true},
           {"telegram", "123456:ABC def", false},
           {"telegram", "https://api.telegram.org/bot123:abc", false},
           {"webhook", "any signing key at all", true},
           {"email", "any password", true},
       }) {
    const std::string kind = row.kind;
    CAPTURE(kind);
    NotificationChannel c;
    c.kind = row.kind;
    const auto s = checkChannelSecret(c, row.secret);
    CHECK(s.ok() == row.ok);
    if (!s.ok()) {
      CHECK(s.error().message.find(row.secret) == std::string::npos);
      CHECK(s.error().code == ErrorCode::invalid_argument);
    }
  }
}
