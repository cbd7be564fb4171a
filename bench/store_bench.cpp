// Store benchmark: jobs claimed + completed per second with 1 and 4 workers, and audit appends
// per second, on the store adapters built so far. Prints figures; asserts nothing about speed
// (machines are shared and noisy). Usage: certsteward_store_bench [jobs]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "adapters/crypto/object_id_generator.hpp"
#include "adapters/crypto/openssl_mac.hpp"
#include "adapters/crypto/system_clock.hpp"
#include "adapters/store/memory/memory_store.hpp"

using namespace certsteward;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// Enqueues `jobs` jobs, then `workers` threads claim and complete until none is left.
double claimRate(ports::Store& store, ports::IdGenerator& ids, const ports::Clock& clock, int jobs,
                 int workers) {
  for (int i = 0; i < jobs; ++i) {
    auto job = domain::newJob(ids.next(), "bench", domain::JobType::renew_certificate, clock.now());
    if (!store.jobs().enqueue(job).ok()) std::abort();
  }
  std::atomic<int> done{0};
  const auto start = Clock::now();
  std::vector<std::thread> threads;
  for (int w = 0; w < workers; ++w) {
    threads.emplace_back([&, w] {
      std::string name = "w";
      name += std::to_string(w);
      for (int guard = 0; guard < jobs * 2; ++guard) {
        domain::JobContext ctx{clock.now(), name, "", {}};
        auto claim = store.jobs().claim(domain::Lane::standard, ctx);
        if (!claim.ok() || !claim->claimed) return;
        if (store.jobs().apply(claim->claimed->id, domain::JobEvent::succeed, ctx).ok()) ++done;
      }
    });
  }
  for (auto& t : threads)
    t.join();
  if (done != jobs) {
    std::fprintf(stderr, "completed %d of %d jobs\n", done.load(), jobs);
    std::abort();
  }
  return jobs / seconds(start);
}

double auditRate(ports::Store& store, ports::IdGenerator& ids, const ports::Clock& clock, int n) {
  adapters::crypto::OpenSslMac mac(std::string(32, 'k'));
  domain::AuditSealer sealer(mac);
  const auto start = Clock::now();
  for (int i = 0; i < n; ++i) {
    domain::AuditEntry e;
    e.id = ids.next();
    e.timestamp = clock.now();
    e.action = "certificate.create";
    e.resource_type = "certificate";
    if (!store.auditLog().append(e, sealer).ok()) std::abort();
  }
  return n / seconds(start);
}

}  // namespace

int main(int argc, char** argv) {
  const int jobs = argc > 1 ? std::atoi(argv[1]) : 10000;
  adapters::crypto::SystemClock clock;
  adapters::crypto::ObjectIdGenerator ids(clock);
  std::printf("store      workers  jobs     claimed+completed/s\n");
  double one = 0;
  for (int workers : {1, 4}) {
    adapters::memory::MemoryStore store;
    const double rate = claimRate(store, ids, clock, jobs, workers);
    if (workers == 1) one = rate;
    std::printf("memory     %-8d %-8d %.0f  (%.2fx of 1 worker)\n", workers, jobs, rate,
                rate / one);
  }
  adapters::memory::MemoryStore store;
  std::printf("memory     audit appends/s: %.0f\n", auditRate(store, ids, clock, 20000));
  return 0;
}
