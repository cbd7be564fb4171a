// Notification delivery through the outbox, as the server runs it: events raised through the
// NotificationDispatcher (event + delivery + job in one SQLite transaction), sent by worker
// threads of the notification lane (claim, NotificationRunner::deliver over ChannelSenders,
// complete) to a webhook channel whose receiver is a small HTTP server in this process on
// 127.0.0.1 (idle workers woken by the dispatcher, as the app wires them). Prints deliveries per
// second and the delay from event to delivery (p50, p99), for a burst and at a steady rate — next
// to the transport alone measured in the same run: the same number of signed POSTs to the same
// receiver from the same number of threads. Usage: certsteward_notification_bench [events]
// [workers]
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <certsteward/adapters/common/http_client.hpp>
#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>
#include <certsteward/adapters/crypto/object_id_generator.hpp>
#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/notify/channel_senders.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_store.hpp>
#include <certsteward/services/notification_dispatcher.hpp>
#include <certsteward/services/notification_runner.hpp>
#include "support/outbound.hpp"

using namespace certsteward;
using Clock = std::chrono::steady_clock;

namespace {

// HTTP/1.1 on 127.0.0.1: reads one request (headers and Content-Length body), answers 200 with
// no body and closes. One thread per connection.
class Receiver {
 public:
  Receiver() {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    const int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd_, 512) != 0 ||
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
      throw std::runtime_error("the receiver cannot listen");
    }
    port_ = ntohs(addr.sin_port);
    acceptor_ = std::thread([this] { run(); });
  }
  ~Receiver() {
    stopping_ = true;
    ::shutdown(fd_, SHUT_RDWR);
    ::close(fd_);
    acceptor_.join();
    while (open_ > 0)
      std::this_thread::sleep_for(std::chrono::milliseconds{1});
  }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_) + "/hook"; }
  long received() const { return received_.load(); }

 private:
  void run() {
    while (!stopping_) {
      const int c = ::accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      ++open_;
      std::thread([this, c] {
        serve(c);
        --open_;
      }).detach();
    }
  }
  void serve(int c) {
    std::string in;
    char buf[8192];
    std::size_t need = std::string::npos;
    while (true) {
      const auto n = ::recv(c, buf, sizeof buf, 0);
      if (n <= 0) break;
      in.append(buf, static_cast<std::size_t>(n));
      const auto end = in.find("\r\n\r\n");
      if (end != std::string::npos && need == std::string::npos) {
        std::size_t length = 0;
        auto at = in.find("Content-Length:");
        if (at == std::string::npos) at = in.find("content-length:");
        if (at != std::string::npos && at < end) length = std::stoul(in.substr(at + 15));
        need = end + 4 + length;
      }
      if (need != std::string::npos && in.size() >= need) break;
    }
    static constexpr char kAnswer[] =
        "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
    (void)!::send(c, kAnswer, sizeof kAnswer - 1, MSG_NOSIGNAL);
    ++received_;
    ::close(c);
  }

  int fd_ = -1;
  int port_ = 0;
  std::thread acceptor_;
  std::atomic<bool> stopping_{false};
  std::atomic<int> open_{0};
  std::atomic<long> received_{0};
};

double millisOf(domain::Duration d) {
  return std::chrono::duration<double, std::milli>(d).count();
}

struct Figures {
  double seconds = 0;
  double p50_ms = 0;
  double p99_ms = 0;
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<std::size_t>(p * static_cast<double>(v.size())))];
}

// `events` events raised by one producer (every `gap`, or as fast as it can), delivered by
// `workers` threads polling every `poll`; returns when every delivery was sent.
Figures run(int events, int workers, domain::Duration gap, domain::Duration poll) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("certsteward-notify-bench-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  Receiver receiver;
  auto opened = adapters::sqlite::SqliteStore::open({(dir / "db.sqlite").string()});
  if (!opened) throw std::runtime_error(opened.error().message);
  auto& store = **opened;
  adapters::crypto::SystemClock clock;
  adapters::crypto::ObjectIdGenerator ids(clock);
  adapters::crypto::AesGcmSecretBox box(std::string(32, 'n'));
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  domain::JobPolicy policy;
  policy.max_attempts = 5;
  // Idle workers wait for their poll interval or until the dispatcher wakes one, as the app's
  // WorkerPool does.
  std::mutex mu;
  std::condition_variable wake;
  int wakeups = 0;
  services::NotificationOptions options{policy, "", std::chrono::seconds{10}};
  options.on_queued = [&] {
    {
      std::lock_guard lock(mu);
      ++wakeups;
    }
    wake.notify_one();
  };
  services::NotificationDispatcher dispatcher(
      {store.events(), store.notificationRules(), store.notificationChannels(),
       store.notificationDeliveries(), store.notificationStates(), store.jobs(),
       store.transactions(), store.projects(), ids, clock},
      options);
  services::NotificationRunner runner(
      {store.notificationDeliveries(), store.notificationChannels(), store.notificationRules(),
       store.jobs(), store.transactions(), store.projects(), senders, box, ids, clock},
      options);
  domain::Project project;
  project.id = ids.next();
  project.name = "bench";
  (void)store.projects().create(project);
  domain::NotificationChannel channel;
  channel.id = ids.next();
  channel.project_id = project.id;
  channel.name = "hook";
  channel.kind = "webhook";
  channel.settings = {{"url", receiver.url()}};
  channel.secret_sealed = *box.seal("bench-signing-secret");
  (void)store.notificationChannels().create(channel);
  domain::NotificationRule rule;
  rule.id = ids.next();
  rule.project_id = project.id;
  rule.name = "all failures";
  rule.events = {domain::EventKind::job_failed};
  rule.channel_ids = {channel.id};
  (void)store.notificationRules().create(rule);

  std::atomic<bool> producing{true};
  const auto deadline = Clock::now() + std::chrono::minutes{10};  // bounded whatever happens
  std::atomic<long> failures{0};
  const auto started = Clock::now();
  std::vector<std::thread> pool;
  for (int w = 0; w < workers; ++w) {
    pool.emplace_back([&, w] {
      const std::string me = "bench-" + std::to_string(w);
      while (true) {
        auto claimed = store.jobs().claim(domain::Lane::notification,
                                          domain::JobContext{clock.now(), me, "", policy});
        if (claimed && claimed->claimed) {
          const auto& job = *claimed->claimed;
          const auto sent = runner.deliver(job, [](domain::LogLevel, const std::string&) {});
          if (!sent) ++failures;
          (void)store.jobs().apply(
              job.id, sent ? domain::JobEvent::succeed : domain::JobEvent::fail,
              domain::JobContext{clock.now(), me, sent ? "" : sent.error().message, policy});
          continue;
        }
        if (!producing && (receiver.received() >= events || Clock::now() > deadline)) return;
        std::unique_lock lock(mu);
        wake.wait_for(lock, poll, [&] { return wakeups > 0 || !producing; });
        if (wakeups > 0) --wakeups;
      }
    });
  }
  for (int i = 0; i < events; ++i) {
    domain::Event e;
    e.kind = domain::EventKind::job_failed;
    e.project_id = project.id;
    e.resource_id = ids.next();
    e.message = "renew_certificate (bench" + std::to_string(i) + ".example.test) is dead";
    e.at = clock.now();
    e.details = {{"certificate.common_name", "bench" + std::to_string(i) + ".example.test"}};
    if (auto s = dispatcher.notify(e); !s) throw std::runtime_error(s.error().message);
    if (gap.count() > 0) std::this_thread::sleep_for(gap);
  }
  producing = false;
  for (auto& t : pool)
    t.join();
  Figures f;
  f.seconds = std::chrono::duration<double>(Clock::now() - started).count();
  std::vector<double> delays;
  for (std::int64_t page = 1;; ++page) {
    auto p = store.notificationDeliveries().listForChannel(project.id, channel.id,
                                                           domain::PageRequest{page, 500});
    if (!p || p->items.empty()) break;
    for (const auto& d : p->items) {
      if (d.sent_at) delays.push_back(millisOf(*d.sent_at - d.created_at));
    }
  }
  if (static_cast<int>(delays.size()) != events || failures > 0) {
    std::cerr << "only " << delays.size() << " of " << events << " delivered (" << failures
              << " failed attempts)\n";
  }
  f.p50_ms = percentile(delays, 0.50);
  f.p99_ms = percentile(delays, 0.99);
  std::filesystem::remove_all(dir);
  return f;
}

// The transport alone: `count` signed POSTs of a similar document from `threads` threads.
double transportOnly(int count, int threads) {
  Receiver receiver;
  std::atomic<int> next{0};
  const auto started = Clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      while (next++ < count) {
        adapters::common::HttpRequest r;
        r.url = receiver.url();
        r.body =
            R"({"delivery_id":"x","event":"job.failed","message":"renew_certificate is dead"})";
        r.headers = {"Content-Type: application/json",
                     "X-CertSteward-Signature: sha256=" +
                         adapters::common::hmacSha256Hex("bench-signing-secret", r.body)};
        (void)adapters::common::postHttp(r);
      }
    });
  }
  for (auto& t : pool)
    t.join();
  return std::chrono::duration<double>(Clock::now() - started).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int events = argc > 1 ? std::stoi(argv[1]) : 10000;
  const int workers = argc > 2 ? std::stoi(argv[2]) : 2;  // notifications.workers default
  const auto poll = std::chrono::milliseconds{2000};      // worker.poll_interval default
  try {
    const double reference = transportOnly(events, workers);
    const auto burst = run(events, workers, domain::Duration{0}, poll);
    const int paced = std::max(1, events / 10);
    const auto steady = run(paced, workers, std::chrono::milliseconds{10}, poll);
    std::printf("transport only: %d signed POSTs, %d threads: %.2f s (%.0f/s)\n", events, workers,
                reference, events / reference);
    std::printf(
        "burst: %d events -> %d deliveries: %.2f s (%.0f deliveries/s), event to "
        "delivery p50 %.0f ms, p99 %.0f ms; %.2f of the transport's time\n",
        events, events, burst.seconds, events / burst.seconds, burst.p50_ms, burst.p99_ms,
        burst.seconds / reference);
    std::printf(
        "steady: %d events at 100/s: event to delivery p50 %.0f ms, p99 %.0f ms "
        "(worker poll interval %lld ms)\n",
        paced, steady.p50_ms, steady.p99_ms, static_cast<long long>(poll.count()));
  } catch (const std::exception& e) {
    std::cerr << "failed: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
