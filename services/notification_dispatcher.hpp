// NotificationDispatcher: the Notifier the services raise events through. In one transaction it
// records the event, asks every rule of the project that concerns it (notification_rules.hpp),
// remembers what the rules decided per subject, and writes one delivery per (rule, channel)
// that sends — with its notification_delivery job (the outbox), or held for the rule's digest.
// A crash before the commit loses the event and its deliveries together; after it, the jobs
// send them. Thread-safe.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <certsteward/domain/job.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/event_log.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/job_queue.hpp>
#include <certsteward/ports/metrics.hpp>
#include <certsteward/ports/notification_channel_repository.hpp>
#include <certsteward/ports/notification_delivery_repository.hpp>
#include <certsteward/ports/notification_rule_repository.hpp>
#include <certsteward/ports/notification_state_repository.hpp>
#include <certsteward/ports/notifier.hpp>
#include <certsteward/ports/project_repository.hpp>
#include <certsteward/ports/transactions.hpp>

namespace certsteward::services {

// The payload of a notification_delivery job: the delivery it sends.
inline constexpr const char* kDeliveryIdPayload = "delivery_id";

struct NotificationOptions {
  domain::JobPolicy policy = {};  // of delivery jobs (attempts, backoff)
  // The UI's address ("https://certs.example.com"), for the {{link}} variable; empty: no link.
  std::string public_url = {};
  domain::Duration send_timeout = std::chrono::seconds{30};  // one attempt of one delivery
  // Called after deliveries were committed with their jobs (the app wakes its notification
  // workers, so a message leaves at once rather than at their next poll). Optional.
  std::function<void()> on_queued = {};
};

class NotificationDispatcher : public ports::Notifier {
 public:
  struct Ports {
    ports::EventLog& events;
    ports::NotificationRuleRepository& rules;
    ports::NotificationChannelRepository& channels;
    ports::NotificationDeliveryRepository& deliveries;
    ports::NotificationStateRepository& states;
    ports::JobQueue& jobs;
    ports::Transactions& transactions;
    const ports::ProjectRepository& projects;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
    ports::Metrics* metrics = nullptr;  // events by kind, deliveries queued
  };
  NotificationDispatcher(Ports ports, NotificationOptions options)
      : p_(ports), options_(std::move(options)) {}

  domain::Status notify(const domain::Event& event) override;

 private:
  domain::Status dispatch(const domain::Event& event, std::vector<std::string>& queued);

  Ports p_;
  NotificationOptions options_;
};

// The notification_delivery job that sends delivery `deliveryId` (its key "notify:<id>").
domain::Job deliveryJob(domain::Id jobId, const domain::Id& projectId, const domain::Id& deliveryId,
                        domain::Timestamp now, const domain::JobPolicy& policy);

// The {{link}} of an event: the UI page of its certificate (or project) under `publicUrl`.
std::string eventLink(const std::string& publicUrl, const domain::Event& event);

}  // namespace certsteward::services
