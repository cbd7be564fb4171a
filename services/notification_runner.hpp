// NotificationRunner: sends deliveries. The notification_delivery job (notification lane) sends
// the delivery it names and records the outcome on it; a failed attempt leaves it pending for
// the job's retry with backoff, the last failed attempt — or a refusal for good — marks it dead.
// A delivery recorded as sent is not sent again by a re-run of its job; a crash between the
// send and that record sends it once more (at least once: receivers drop duplicates by its id).
// Also: the channel test (send now, answer the outcome) and the digest of a rule. Thread-safe.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include <certsteward/domain/job.hpp>
#include <certsteward/ports/notification_sender.hpp>
#include <certsteward/ports/secret_box.hpp>
#include <certsteward/services/notification_dispatcher.hpp>

namespace certsteward::services {

class NotificationRunner {
 public:
  struct Ports {
    ports::NotificationDeliveryRepository& deliveries;
    ports::NotificationChannelRepository& channels;
    ports::NotificationRuleRepository& rules;
    ports::JobQueue& jobs;
    ports::Transactions& transactions;
    const ports::ProjectRepository& projects;
    ports::NotificationSender& sender;
    const ports::SecretBox& secrets;
    ports::IdGenerator& ids;
    const ports::Clock& clock;
    ports::Metrics* metrics = nullptr;  // deliveries by channel kind and outcome, latency
  };
  using Log = std::function<void(domain::LogLevel, const std::string&)>;

  NotificationRunner(Ports ports, NotificationOptions options)
      : p_(ports), options_(std::move(options)) {}

  // The job's attempt: an error makes the job retry (or go dead after its last attempt).
  domain::Status deliver(const domain::Job& job, const Log& log);

  // Sends a test message through `channel` now and records it as a delivery ("test"): sent, or
  // dead with the server's words in last_error.
  domain::Result<domain::NotificationDelivery> test(const domain::NotificationChannel& channel);

  // The digest of `rule` when its daily time has come since its last digest (else nothing):
  // one delivery per channel listing every held delivery of the rule, queued as a job; the
  // held ones become digested. A rule switched back to mode each sends what it still holds at
  // once. @return how many digests were queued.
  domain::Result<int> digestIfDue(const domain::NotificationRule& rule);

  // How far ahead cert.expiring_soon must be raised for the project's rules: `atLeast`, or the
  // largest threshold of an enabled rule subscribed to it.
  domain::Result<domain::Duration> expiryLookahead(const domain::Id& projectId,
                                                   domain::Duration atLeast) const;

  // Marks the delivery of a job that died outside deliver() (its worker lost on the last
  // attempt) dead with `why`, unless it was sent.
  domain::Status abandon(const domain::Job& job, const std::string& why);

  // The message a delivery through `channel` carries (templates rendered and escaped).
  // `items`: a digest's held deliveries.
  static ports::OutgoingMessage render(const domain::NotificationChannel& channel,
                                       const domain::NotificationDelivery& delivery,
                                       const std::vector<domain::NotificationDelivery>& items = {});

 private:
  // The variables of a message the runner makes itself (a test, a digest), without "message".
  std::map<std::string, std::string> ownVariables(const domain::Id& projectId, const char* event,
                                                  domain::Timestamp at) const;
  // Sends and records the outcome on `d` (not stored; the caller counted the attempt). ok when it
  // was sent. `redelivery`: an earlier attempt may have reached the receiver.
  domain::Status sendOnce(const domain::NotificationChannel& channel,
                          domain::NotificationDelivery& d, domain::Duration timeout,
                          bool redelivery);

  Ports p_;
  NotificationOptions options_;
};

// Whether `rule`'s digest is due at `now`: the latest daily HH:MM (UTC) at or before `now`
// (today's, or yesterday's before that time) came after its last digest (or its creation).
bool digestDue(const domain::NotificationRule& rule, domain::Timestamp now);

}  // namespace certsteward::services
