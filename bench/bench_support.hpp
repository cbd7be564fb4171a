// What the store benchmarks share: the claim loop (jobs claimed and completed by workers of one
// or more store instances), the million-certificate data set, its measurements (a list page
// and the renewal sweep), and the process's resident memory.
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include <certsteward/domain/certificate.hpp>
#include <certsteward/ports/clock.hpp>
#include <certsteward/ports/id_generator.hpp>
#include <certsteward/ports/store.hpp>

namespace certsteward::bench {

using Steady = std::chrono::steady_clock;

inline double seconds(Steady::time_point since) {
  return std::chrono::duration<double>(Steady::now() - since).count();
}
inline double millis(Steady::time_point since) {
  return seconds(since) * 1000;
}

inline constexpr std::int64_t kDue = 10000;

// Enqueues `jobs` jobs, then `workers` threads on each store claim and complete until none is
// left. Claims per second.
inline double claimRate(const std::vector<ports::Store*>& stores, ports::IdGenerator& ids,
                        const ports::Clock& clock, int jobs, int workers) {
  for (int i = 0; i < jobs; ++i) {
    auto job = domain::newJob(ids.next(), "bench", domain::JobType::renew_certificate, clock.now());
    if (!stores.front()->jobs().enqueue(job).ok()) std::abort();
  }
  std::atomic<int> done{0};
  const auto start = Steady::now();
  std::vector<std::thread> threads;
  for (std::size_t s = 0; s < stores.size(); ++s) {
    for (int w = 0; w < workers; ++w) {
      threads.emplace_back([&, s, w] {
        const std::string name = "i" + std::to_string(s) + "w" + std::to_string(w);
        for (int guard = 0; guard < jobs * 2; ++guard) {
          domain::JobContext ctx{clock.now(), name, "", {}};
          auto claim = stores[s]->jobs().claim(domain::Lane::standard, ctx);
          if (!claim.ok()) {
            std::fprintf(stderr, "claim: %s\n", claim.error().message.c_str());
            std::abort();
          }
          if (!claim->claimed) return;
          if (stores[s]->jobs().apply(claim->claimed->id, domain::JobEvent::succeed, ctx).ok()) {
            ++done;
          }
        }
      });
    }
  }
  for (auto& t : threads)
    t.join();
  if (done != jobs) {
    std::fprintf(stderr, "completed %d of %d jobs\n", done.load(), jobs);
    std::abort();
  }
  return jobs / seconds(start);
}

// The i-th certificate: kDue of them are due for renewal at `now`, the rest renew later (as in
// certificates_bench.cpp).
inline domain::Certificate makeCertificate(ports::IdGenerator& ids, domain::Timestamp now,
                                           std::int64_t i) {
  using namespace std::chrono;
  domain::Certificate c;
  c.id = ids.next();
  c.project_id = "bench-project";
  c.common_name = "host" + std::to_string(i) + ".example.com";
  c.sans = {c.common_name};
  c.status =
      i % 10 == 9 ? domain::CertificateStatus::renewal_pending : domain::CertificateStatus::active;
  c.created_at = now;
  c.updated_at = now;
  const auto offset = i < kDue ? hours{1 + i % (29 * 24)} : hours{31 * 24 + i % (89 * 24)};
  c.expires_at = now + offset;
  if (i < kDue) c.status = domain::CertificateStatus::active;
  c.next_renewal_at = domain::renewalTime(*c.expires_at, c.renewal_threshold_days);
  c.serial_number = std::to_string(1000000 + i);
  c.private_key_sealed = "v1:" + std::string(120, 'k');
  return c;
}

// Inserts `count` certificates through the repository, 1,000 per transaction.
inline void fill(ports::Store& store, ports::IdGenerator& ids, domain::Timestamp now,
                 std::int64_t count, const char* name) {
  const auto start = Steady::now();
  for (std::int64_t from = 0; from < count; from += 1000) {
    const auto s = store.transactions().run([&]() -> domain::Status {
      for (std::int64_t i = from; i < std::min(count, from + 1000); ++i) {
        if (auto made = store.certificates().create(makeCertificate(ids, now, i)); !made) {
          return made;
        }
      }
      return {};
    });
    if (!s) {
      std::fprintf(stderr, "%s: insert: %s\n", name, s.error().message.c_str());
      std::abort();
    }
  }
  std::printf("%-8s inserted %lld certificates in %.1f s (%.0f/s, 1,000 per transaction)\n", name,
              static_cast<long long>(count), seconds(start),
              static_cast<double>(count) / seconds(start));
}

struct Figures {
  double list_ms = 1e9;
  double sweep_ms = 1e9;
  std::size_t listed = 0;
  std::size_t due = 0;
};

// Best of 5 list pages (page 50, 100 per page, status active, by expires_at) and of 3 sweeps.
inline Figures measure(ports::Store& store, domain::Timestamp now) {
  Figures f;
  ports::CertificateFilter filter;
  filter.statuses = {domain::CertificateStatus::active};
  filter.sort = ports::CertificateSort::expires_at;
  filter.order = domain::SortOrder::asc;
  for (int i = 0; i < 5; ++i) {
    const auto start = Steady::now();
    auto page =
        store.certificates().list("bench-project", filter, *domain::makePageRequest(50, 100));
    f.list_ms = std::min(f.list_ms, millis(start));
    if (!page) std::abort();
    f.listed = page->items.size();
  }
  for (int i = 0; i < 3; ++i) {
    const auto start = Steady::now();
    auto due = store.certificates().dueForRenewal(now, kDue * 2);
    f.sweep_ms = std::min(f.sweep_ms, millis(start));
    if (!due) std::abort();
    f.due = due->size();
  }
  return f;
}

// The resident memory of process `pid` (this one when 0), in KiB; -1 when unknown.
inline long rssKiBOf(long pid) {
  const std::string path =
      pid == 0 ? std::string("/proc/self/status") : "/proc/" + std::to_string(pid) + "/status";
  FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return -1;
  char line[256];
  long kb = -1;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmRSS: %ld kB", &kb) == 1) break;
  }
  std::fclose(f);
  return kb;
}

inline long rssKiB() {
  return rssKiBOf(0);
}

}  // namespace certsteward::bench
