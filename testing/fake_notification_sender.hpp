// A NotificationSender that keeps every message it is handed, per channel, and can be told to
// fail: the next `n` sends (any channel) answer `error` — a receiver that is down for a while —
// or every send while `down` is set — one that is down for good. Thread-safe.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <certsteward/ports/notification_sender.hpp>

namespace certsteward::testing {

class FakeNotificationSender : public ports::NotificationSender {
 public:
  struct Sent {
    domain::Id channel_id;
    std::string kind;
    std::string secret;
    ports::OutgoingMessage message;
  };

  domain::Status send(const domain::NotificationChannel& channel, const std::string& secret,
                      const ports::OutgoingMessage& message, domain::Duration) override {
    std::lock_guard lock(mu_);
    ++attempts_;
    if (down_) return *down_;
    if (failures_ > 0) {
      --failures_;
      return failure_;
    }
    sent_.push_back({channel.id, channel.kind, secret, message});
    return {};
  }

  // The next `n` sends fail with `error`.
  void failNext(int n, domain::Error error = domain::makeError(domain::ErrorCode::unavailable,
                                                               "connection refused")) {
    std::lock_guard lock(mu_);
    failures_ = n;
    failure_ = std::move(error);
  }
  // Every send fails with `error` until up() is called.
  void down(domain::Error error) {
    std::lock_guard lock(mu_);
    down_ = std::move(error);
  }
  void up() {
    std::lock_guard lock(mu_);
    down_.reset();
  }
  std::vector<Sent> sent() const {
    std::lock_guard lock(mu_);
    return sent_;
  }
  int attempts() const {
    std::lock_guard lock(mu_);
    return attempts_;
  }

 private:
  mutable std::mutex mu_;
  std::vector<Sent> sent_;
  int attempts_ = 0;
  int failures_ = 0;
  domain::Error failure_ = domain::makeError(domain::ErrorCode::unavailable, "connection refused");
  std::optional<domain::Error> down_;
};

}  // namespace certsteward::testing
