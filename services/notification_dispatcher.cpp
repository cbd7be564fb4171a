// Events into the outbox.
#include <certsteward/services/notification_dispatcher.hpp>

#include <algorithm>
#include <set>

#include <certsteward/domain/notification_rules.hpp>

namespace certsteward::services {
domain::Job deliveryJob(domain::Id jobId, const domain::Id& projectId, const domain::Id& deliveryId,
                        domain::Timestamp now, const domain::JobPolicy& policy) {
  domain::Job job =
      newJob(std::move(jobId), projectId, domain::JobType::notification_delivery, now, policy);
  job.payload[kDeliveryIdPayload] = deliveryId;
  job.idempotency_key = "notify:" + deliveryId;
  return job;
}

std::string eventLink(const std::string& publicUrl, const domain::Event& event) {
  if (publicUrl.empty()) return {};
  std::string base = publicUrl;
  while (!base.empty() && base.back() == '/')
    base.pop_back();
  const auto cert = event.details.find("certificate.id");
  if (cert != event.details.end() && !cert->second.empty()) {
    return base + "/projects/" + event.project_id + "/certificates/" + cert->second;
  }
  return base + "/projects/" + event.project_id;
}

domain::Status NotificationDispatcher::notify(const domain::Event& input) {
  domain::Event event = input;
  if (event.id.empty()) event.id = p_.ids.next();
  if (p_.metrics != nullptr) {
    p_.metrics->increment("certsteward_events_total", {{"kind", std::string(nameOf(event.kind))}});
  }
  std::vector<std::string> queued;  // channel kinds, once committed
  // One notify at a time per project: what rules remember per subject is read, then written.
  auto done = p_.transactions.run({"notifications:" + event.project_id}, [&] {
    queued.clear();  // the store may run the body again
    return dispatch(event, queued);
  });
  if (done && p_.metrics != nullptr) {
    for (const auto& kind : queued)
      p_.metrics->increment("certsteward_notification_deliveries_queued_total", {{"kind", kind}});
  }
  if (done && !queued.empty() && options_.on_queued) options_.on_queued();
  return done;
}

domain::Status NotificationDispatcher::dispatch(const domain::Event& event,
                                                std::vector<std::string>& queued) {
  if (auto s = p_.events.record(event); !s) return s;

  // The rules subscribed to the kind, and (only_on_change) those subscribed to a failure it ends.
  std::vector<domain::NotificationRule> rules;
  std::set<domain::Id> seen;
  std::vector<domain::EventKind> kinds{event.kind};
  for (auto k : recoveredBy(event.kind))
    kinds.push_back(k);
  for (auto k : kinds) {
    auto matching = p_.rules.matching(event.project_id, k);
    if (!matching) return matching.error();
    for (auto& r : *matching) {
      if (k != event.kind && !r.only_on_change) continue;
      if (seen.insert(r.id).second) rules.push_back(std::move(r));
    }
  }
  if (rules.empty()) return {};

  auto base = messageVariables(event, false);
  if (auto project = p_.projects.get(event.project_id); project) {
    base["project.name"] = project->name;
  }
  base["project.id"] = event.project_id;
  if (const auto link = eventLink(options_.public_url, event); !link.empty()) base["link"] = link;

  const domain::Timestamp now = p_.clock.now();
  for (const auto& rule : rules) {
    auto state = p_.states.find(event.project_id, rule.id, subjectOf(event));
    if (!state) return state.error();
    const auto decision = decide(rule, event, *state);
    if (decision.remember) {
      domain::NotificationState next = *decision.remember;
      next.project_id = event.project_id;
      next.rule_id = rule.id;
      if (*state) {
        next.id = (*state)->id;
        if (auto s = p_.states.update(next); !s) return s;
      } else {
        next.id = p_.ids.next();
        if (auto s = p_.states.create(next); !s) return s;
      }
    }
    if (!decision.send) continue;
    auto vars = base;
    vars["recovery"] = decision.recovery ? "true" : "false";
    for (const auto& channelId : rule.channel_ids) {
      auto channel = p_.channels.get(event.project_id, channelId);
      if (!channel) {
        if (channel.error().code == domain::ErrorCode::not_found) continue;  // removed since
        return channel.error();
      }
      if (!channel->enabled) continue;
      domain::NotificationDelivery d;
      d.id = p_.ids.next();
      d.project_id = event.project_id;
      d.channel_id = channelId;
      d.rule_id = rule.id;
      d.event_id = event.id;
      d.event = std::string(nameOf(event.kind));
      d.resource_id = event.resource_id;
      d.recovery = decision.recovery;
      d.variables = vars;
      d.variables["delivery_id"] = d.id;
      d.created_at = d.updated_at = now;
      // The delivery first, then its job: a worker that claims the job finds it.
      if (rule.mode == domain::kRuleModeDigest) {
        d.status = domain::DeliveryStatus::held;
      } else {
        d.job_id = p_.ids.next();
      }
      if (auto s = p_.deliveries.create(d); !s) return s;
      if (!d.job_id.empty()) {
        auto enqueued =
            p_.jobs.enqueue(deliveryJob(d.job_id, event.project_id, d.id, now, options_.policy));
        if (!enqueued) return enqueued.error();
      }
      queued.push_back(channel->kind);
    }
  }
  return {};
}

}  // namespace certsteward::services
