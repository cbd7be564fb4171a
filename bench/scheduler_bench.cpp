// The scheduler's sweep with short lifetimes, on SQLite: N certificates (default 10,000) of six
// days, renewed with a third of their lifetime left (renew_at_fraction 1/3), next to N of 90 days
// (30 days left, as today), each population in its steady state (renewals spread evenly over the
// next renewal interval: 4 days, 60 days). A simulated day of
// hourly sweeps runs Scheduler::sweep() (the due query, one renew_certificate job and one
// certificate update per due certificate); after each sweep the renewals it queued are completed
// as a worker would (a new version, the next renewal time from it). Prints per population the
// sweep time (median and worst, of the 24) and the renewals queued per sweep and per day, and
// their ratio. Speed is a figure here, never an assertion.
// The six-day population runs twice: with each batch of renewals in one transaction (as the
// server wires it) and with each write on its own (the reference).
// Usage: certsteward_scheduler_bench [count] [sweep interval in minutes, default 60]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include <certsteward/adapters/crypto/object_id_generator.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_store.hpp>
#include <certsteward/services/scheduler.hpp>
#include <certsteward/testing/fake_clock.hpp>

using namespace certsteward;
using Steady = std::chrono::steady_clock;

namespace {

double millis(Steady::time_point since) {
  return std::chrono::duration<double, std::milli>(Steady::now() - since).count();
}

struct Population {
  const char* name;
  domain::Duration lifetime;
  double fraction;     // renew_at_fraction; 0: the 30-day threshold
  bool transactional;  // each batch of renewals in one transaction, as the server does
};

struct Figures {
  double median_ms = 0;
  double worst_ms = 0;
  std::int64_t per_day = 0;
  std::int64_t most_in_one_sweep = 0;
};

Figures simulate(const Population& p, std::int64_t count, std::chrono::minutes sweepEvery) {
  const auto path = std::filesystem::temp_directory_path() /
                    ("certsteward-scheduler-" + std::to_string(::getpid()) + ".db");
  std::filesystem::remove(path);
  Figures f;
  {
    auto store = std::move(*adapters::sqlite::SqliteStore::open({path.string()}));
    testing::FakeClock clock(domain::Timestamp{std::chrono::days{20800}});  // 2026
    adapters::crypto::ObjectIdGenerator ids(clock);
    const auto start = clock.now();
    // Issued evenly over one lifetime before now: a steady state.
    for (std::int64_t i = 0; i < count; ++i) {
      domain::Certificate c;
      c.id = ids.next();
      c.project_id = "bench-project";
      c.common_name = "host" + std::to_string(i) + ".example.com";
      c.sans = {c.common_name};
      c.status = domain::CertificateStatus::active;
      c.renew_at_fraction = p.fraction;
      // Renewals spread evenly over the next renewal interval (none due yet): issued that much
      // of an interval ago.
      const auto interval = domain::renewalTimeFor(c, start, start + p.lifetime) - start;
      const auto issued = start - interval * (i + 1) / count;
      c.issued_at = issued;
      c.expires_at = issued + p.lifetime;
      c.next_renewal_at = domain::renewalTimeFor(c, issued, *c.expires_at);
      c.created_at = c.updated_at = issued;
      if (!store->certificates().create(c)) std::abort();
    }
    services::Scheduler::Ports ports{
        store->leaderLock(), store->certificates(), store->jobs(), ids, clock,
        store->projects(),   store->settings()};
    if (p.transactional) ports.transactions = &store->transactions();
    services::Scheduler scheduler(ports, services::SchedulerOptions{});
    std::vector<double> times;
    const auto sweeps = std::chrono::hours{24} / sweepEvery;
    for (std::int64_t sweep = 0; sweep < sweeps; ++sweep) {
      clock.advance(sweepEvery);
      const auto began = Steady::now();
      auto report = scheduler.sweep();
      times.push_back(millis(began));
      if (!report) std::abort();
      f.per_day += report->enqueued;
      f.most_in_one_sweep = std::max(f.most_in_one_sweep, report->enqueued);
      // The workers renew what was queued: a new version from now.
      ports::JobFilter filter;
      filter.type = domain::JobType::renew_certificate;
      filter.status = domain::JobStatus::pending;
      for (int round = 0; round < 1000; ++round) {
        auto page = store->jobs().list("bench-project", filter, domain::PageRequest{1, 100});
        if (!page) std::abort();
        if (page->items.empty()) break;
        for (const auto& job : page->items) {
          auto cert = store->certificates().get("bench-project", *job.certificate_id);
          if (!cert) std::abort();
          const auto now = clock.now();
          (void)domain::applyCertificateEvent(*cert, domain::CertificateEvent::renewal_started,
                                              {now, "", {}, {}, false, {}});
          domain::CertificateContext done{now, "", now + p.lifetime, {}, false, {}};
          done.new_not_before = now;
          (void)domain::applyCertificateEvent(*cert, domain::CertificateEvent::renewed, done);
          if (!store->certificates().update(*cert)) std::abort();
          if (!store->jobs().apply(job.id, domain::JobEvent::cancel, {now, "", "", {}})) {
            std::abort();
          }
        }
      }
    }
    std::sort(times.begin(), times.end());
    f.median_ms = times[times.size() / 2];
    f.worst_ms = times.back();
  }
  std::filesystem::remove(path);
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t count = argc > 1 ? std::atoll(argv[1]) : 10000;
  const std::chrono::minutes interval{argc > 2 ? std::clamp(std::atoi(argv[2]), 1, 1440) : 60};
  const Population populations[] = {
      {"6-day, renew_at_fraction 1/3", std::chrono::days{6}, 1.0 / 3, true},
      {"90-day, 30-day threshold", std::chrono::days{90}, 0, true},
      {"6-day, each write on its own (no batch transaction)", std::chrono::days{6}, 1.0 / 3, false},
  };
  std::vector<Figures> figures;
  for (const auto& p : populations) {
    figures.push_back(simulate(p, count, interval));
    const auto& f = figures.back();
    std::printf(
        "%lld certificates, %s: sweep every %lld min, median %.1f ms, worst %.1f ms; renewals "
        "queued %lld a day, at most %lld in one sweep\n",
        static_cast<long long>(count), p.name, static_cast<long long>(interval.count()),
        f.median_ms, f.worst_ms, static_cast<long long>(f.per_day),
        static_cast<long long>(f.most_in_one_sweep));
  }
  std::printf("ratio 6-day / 90-day: renewals a day %.1fx, worst sweep %.1fx\n",
              static_cast<double>(figures[0].per_day) /
                  static_cast<double>(std::max<std::int64_t>(1, figures[1].per_day)),
              figures[0].worst_ms / std::max(0.001, figures[1].worst_ms));
  std::printf("ratio 6-day, batch transaction / each write alone: median sweep %.2fx\n",
              figures[0].median_ms / std::max(0.001, figures[2].median_ms));
  return 0;
}
