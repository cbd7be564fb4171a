// Sending deliveries: the job's attempt, the channel test, digests.
#include <certsteward/services/notification_runner.hpp>

#include <chrono>

#include <certsteward/domain/distribution_settings.hpp>
#include <certsteward/domain/notification_rules.hpp>
#include <certsteward/domain/template.hpp>

namespace certsteward::services {
namespace {

// Plain text as an HTML fragment: escaped, line breaks kept.
std::string htmlOf(const std::string& text) {
  std::string out;
  for (char c : domain::escapeHtml(text)) {
    if (c == '\n') {
      out += "<br>\n";
    } else {
      out += c;
    }
  }
  return out;
}

constexpr std::size_t kDigestBatch = 500;
// A test answers while its request waits: never longer than this.
constexpr domain::Duration kTestTimeout = std::chrono::seconds{15};
constexpr int kDigestBatches = 20;  // 10,000 held deliveries a day, at most, per rule

}  // namespace

ports::OutgoingMessage NotificationRunner::render(
    const domain::NotificationChannel& channel, const domain::NotificationDelivery& d,
    const std::vector<domain::NotificationDelivery>& items) {
  ports::OutgoingMessage m;
  m.delivery_id = d.id;
  m.event = d.event;
  m.recovery = d.recovery;
  m.variables = d.variables;
  m.variables["delivery_id"] = d.id;
  if (const auto at = m.variables.find("at"); at != m.variables.end()) {
    if (auto parsed = domain::parseTimestamp(at->second)) m.at = *parsed;
  }
  const auto subjectTemplate = domain::settingOf(channel.settings, "subject_template");
  const auto bodyTemplate = domain::settingOf(channel.settings, "body_template");
  m.subject = subjectTemplate.empty()
                  ? domain::defaultSubject(m.variables, d.recovery)
                  : renderTemplate(subjectTemplate, m.variables, domain::Escape::none);
  std::string text = domain::defaultText(m.variables, d.recovery);
  if (!items.empty()) {
    text = std::to_string(items.size()) + " notification(s) since the last digest:\n\n";
    for (const auto& item : items) {
      text += "- " + domain::defaultSubject(item.variables, item.recovery) + "\n";
      const auto msg = item.variables.find("message");
      if (msg != item.variables.end()) text += "  " + msg->second + "\n";
    }
    m.variables["message"] = text;  // what a template's {{message}} lists
  }
  if (channel.kind == "webhook") {
    if (!bodyTemplate.empty())
      m.body = renderTemplate(bodyTemplate, m.variables, domain::Escape::json);
    m.text = text;
    m.html = htmlOf(text);
  } else if (!bodyTemplate.empty() && items.empty()) {
    m.text = renderTemplate(bodyTemplate, m.variables, domain::Escape::none);
    m.html = htmlOf(m.text);
  } else {
    m.text = text;
    m.html = htmlOf(text);
  }
  return m;
}

domain::Status NotificationRunner::sendOnce(const domain::NotificationChannel& channel,
                                            domain::NotificationDelivery& d,
                                            domain::Duration timeout, bool redelivery) {
  std::vector<domain::NotificationDelivery> items;
  for (const auto& id : d.items) {
    if (auto item = p_.deliveries.get(d.project_id, id)) items.push_back(std::move(*item));
  }
  std::string secret;
  if (!channel.secret_sealed.empty()) {
    auto opened = p_.secrets.open(channel.secret_sealed);
    if (!opened) {
      d.updated_at = p_.clock.now();
      d.last_error = "the channel's secret cannot be decrypted (was secrets.key changed?)";
      return makeError(domain::ErrorCode::failed_precondition, d.last_error);
    }
    secret = std::move(*opened);
  }
  auto message = render(channel, d, items);
  message.redelivery = redelivery;
  const auto started = p_.clock.now();
  domain::Status sent = makeError(domain::ErrorCode::internal, "the channel could not be reached");
  try {
    sent = p_.sender.send(channel, secret, message, timeout);
  } catch (...) {
    sent = makeError(domain::ErrorCode::internal, "the channel adapter failed unexpectedly");
  }
  const auto now = p_.clock.now();
  d.updated_at = now;
  if (p_.metrics != nullptr) {
    p_.metrics->increment("certsteward_notification_deliveries_total",
                          {{"kind", channel.kind}, {"outcome", sent ? "sent" : "failed"}});
    p_.metrics->observe("certsteward_notification_send_seconds", {{"kind", channel.kind}},
                        std::chrono::duration<double>(now - started).count());
    if (sent) {
      p_.metrics->observe("certsteward_notification_delivery_latency_seconds",
                          {{"kind", channel.kind}},
                          std::chrono::duration<double>(now - d.created_at).count());
    }
  }
  if (sent) {
    d.status = domain::DeliveryStatus::sent;
    d.sent_at = now;
    d.last_error.clear();
    return {};
  }
  d.last_error = sent.error().message.substr(0, 1000);
  return sent;
}

domain::Status NotificationRunner::deliver(const domain::Job& job, const Log& log) {
  const auto named = job.payload.find(kDeliveryIdPayload);
  if (named == job.payload.end()) {
    return makeError(domain::ErrorCode::invalid_argument, "the job names no delivery");
  }
  auto d = p_.deliveries.get(job.project_id, named->second);
  if (!d) return d.error();
  if (d->status == domain::DeliveryStatus::sent) {
    log(domain::LogLevel::info, "delivery " + d->id + " was sent already");
    return {};
  }
  auto channel = p_.channels.get(job.project_id, d->channel_id);
  if (!channel || !channel->enabled) {
    if (!channel && channel.error().code != domain::ErrorCode::not_found) return channel.error();
    d->status = domain::DeliveryStatus::dead;
    d->last_error = !channel ? "the channel was deleted" : "the channel is disabled";
    d->updated_at = p_.clock.now();
    log(domain::LogLevel::warn, "delivery " + d->id + " not sent: " + d->last_error);
    return p_.deliveries.update(*d);  // nothing to retry
  }
  // The attempt is counted before anything leaves: a process killed while sending leaves it
  // counted, and the next attempt tells the receiver it may have seen this delivery already
  // (at least once: receivers drop duplicates by delivery_id).
  const bool redelivery = d->attempts > 0;
  d->attempts += 1;
  d->updated_at = p_.clock.now();
  if (auto counted = p_.deliveries.update(*d); !counted) return counted;
  const domain::Status sent = sendOnce(*channel, *d, options_.send_timeout, redelivery);
  if (sent) {
    log(domain::LogLevel::info, "delivery " + d->id + " sent through " + channel->kind +
                                    " channel '" + channel->name + "'");
  } else {
    log(domain::LogLevel::error, "delivery " + d->id + " failed: " + d->last_error);
    // Refused for good (4xx, authentication, a refused recipient): retrying cannot help.
    const bool refused = sent.error().code == domain::ErrorCode::failed_precondition;
    if (refused || job.attempts >= job.max_attempts) d->status = domain::DeliveryStatus::dead;
    if (refused) {
      log(domain::LogLevel::error, "the channel refused it: not retried");
      if (auto stored = p_.deliveries.update(*d); !stored) return stored;
      return {};  // the job ends; the delivery is listed dead with the refusal
    }
  }
  if (auto stored = p_.deliveries.update(*d); !stored) return stored;
  return sent;
}

std::map<std::string, std::string> NotificationRunner::ownVariables(const domain::Id& projectId,
                                                                    const char* event,
                                                                    domain::Timestamp at) const {
  std::map<std::string, std::string> vars{{"event", event},
                                          {"at", domain::formatTimestamp(at)},
                                          {"recovery", "false"},
                                          {"project.id", projectId}};
  if (auto project = p_.projects.get(projectId)) vars["project.name"] = project->name;
  return vars;
}

domain::Result<domain::NotificationDelivery> NotificationRunner::test(
    const domain::NotificationChannel& channel) {
  domain::NotificationDelivery d;
  d.id = p_.ids.next();
  d.project_id = channel.project_id;
  d.channel_id = channel.id;
  d.event = "test";
  d.created_at = d.updated_at = p_.clock.now();
  d.variables = ownVariables(channel.project_id, "test", d.created_at);
  d.variables["message"] = "A test message from CertSteward: this channel works.";
  d.attempts = 1;
  if (!sendOnce(channel, d, kTestTimeout, false)) d.status = domain::DeliveryStatus::dead;
  if (auto s = p_.deliveries.create(d); !s) return s.error();
  return d;
}

domain::Result<domain::Duration> NotificationRunner::expiryLookahead(
    const domain::Id& projectId, domain::Duration atLeast) const {
  auto rules = p_.rules.matching(projectId, domain::EventKind::cert_expiring_soon);
  if (!rules) return rules.error();
  domain::Duration window = atLeast;
  for (const auto& r : *rules) {
    for (int d : r.thresholds_days)
      window = std::max<domain::Duration>(window, std::chrono::days{d});
  }
  return window;
}

domain::Status NotificationRunner::abandon(const domain::Job& job, const std::string& why) {
  const auto named = job.payload.find(kDeliveryIdPayload);
  if (named == job.payload.end()) return {};
  auto d = p_.deliveries.get(job.project_id, named->second);
  if (!d) return d.error();
  if (d->status == domain::DeliveryStatus::sent || d->status == domain::DeliveryStatus::dead)
    return {};
  d->status = domain::DeliveryStatus::dead;
  d->last_error = why.substr(0, 1000);
  d->updated_at = p_.clock.now();
  return p_.deliveries.update(*d);
}

bool digestDue(const domain::NotificationRule& rule, domain::Timestamp now) {
  if (rule.mode != domain::kRuleModeDigest || rule.digest_time.size() != 5) return false;
  const int hh = (rule.digest_time[0] - '0') * 10 + (rule.digest_time[1] - '0');
  const int mm = (rule.digest_time[3] - '0') * 10 + (rule.digest_time[4] - '0');
  // The latest HH:MM at or before now (today's, or yesterday's before that time of day): a sweep
  // that comes late, even the next day, still finds it.
  const auto day = std::chrono::floor<std::chrono::days>(now);
  domain::Timestamp latest = day + std::chrono::hours{hh} + std::chrono::minutes{mm};
  if (now < latest) latest -= std::chrono::days{1};
  // Since the last digest, or since the rule exists.
  return rule.last_digest_at.value_or(rule.created_at) < latest;
}

domain::Result<int> NotificationRunner::digestIfDue(const domain::NotificationRule& rule) {
  const domain::Timestamp now = p_.clock.now();
  // A rule switched from digest to each sends what it still holds at once.
  const auto due = [&](const domain::NotificationRule& r) -> domain::Result<bool> {
    if (r.mode == domain::kRuleModeDigest) return digestDue(r, now);
    auto held = p_.deliveries.heldForRule(r.project_id, r.id, 1);
    if (!held) return held.error();
    return !held->empty();
  };
  auto wanted = due(rule);
  if (!wanted) return wanted.error();
  if (!*wanted) return 0;
  int queued = 0;
  const domain::Status done = p_.transactions.run({}, [&]() -> domain::Status {
    queued = 0;
    auto fresh = p_.rules.get(rule.project_id, rule.id);
    if (!fresh) return fresh.error();
    auto still = due(*fresh);
    if (!still) return still.error();
    if (!*still) return {};  // another instance did it
    const auto digestVariables = ownVariables(rule.project_id, "digest", now);
    // Every held delivery, a batch at a time (bounded); one digest per channel and batch.
    for (int batch = 0; batch < kDigestBatches; ++batch) {
      auto held = p_.deliveries.heldForRule(rule.project_id, rule.id, kDigestBatch);
      if (!held) return held.error();
      if (held->empty()) break;
      std::map<domain::Id, std::vector<domain::NotificationDelivery>> byChannel;
      for (auto& h : *held)
        byChannel[h.channel_id].push_back(std::move(h));
      for (auto& [channelId, items] : byChannel) {
        domain::NotificationDelivery digest;
        digest.id = p_.ids.next();
        digest.project_id = rule.project_id;
        digest.channel_id = channelId;
        digest.rule_id = rule.id;
        digest.event = "digest";
        digest.created_at = digest.updated_at = now;
        digest.variables = digestVariables;
        digest.variables["message"] =
            std::to_string(items.size()) + " notification(s) of rule '" + fresh->name + "'";
        digest.job_id = p_.ids.next();
        for (auto& item : items) {
          digest.items.push_back(item.id);
          item.status = domain::DeliveryStatus::digested;
          item.digest_id = digest.id;
          item.updated_at = now;
          if (auto s = p_.deliveries.update(item); !s) return s;
        }
        if (auto s = p_.deliveries.create(digest); !s) return s;
        auto q = p_.jobs.enqueue(
            deliveryJob(digest.job_id, rule.project_id, digest.id, now, options_.policy));
        if (!q) return q.error();
        ++queued;
      }
    }
    fresh->last_digest_at = now;
    return p_.rules.update(*fresh);
  });
  if (!done) return done.error();
  return queued;
}

}  // namespace certsteward::services
