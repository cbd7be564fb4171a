// Store benchmark: jobs claimed + completed per second with 1 and 4 workers, and audit appends
// per second, on the store adapters built so far. Prints figures; asserts nothing about speed
// (machines are shared and noisy). Usage: certsteward_store_bench [jobs]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <certsteward/adapters/crypto/object_id_generator.hpp>
#include <certsteward/adapters/crypto/openssl_mac.hpp>
#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_store.hpp>
#include <certsteward/services/audit_sealer.hpp>

#include <unistd.h>
#include <filesystem>

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
  services::AuditSealer sealer(mac);
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
  const auto dir =
      std::filesystem::temp_directory_path() / ("certsteward-bench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::printf("store      workers  jobs     claimed+completed/s\n");
  std::map<int, double> reference;
  for (const char* kind : {"memory", "sqlite"}) {
    for (int workers : {1, 4}) {
      std::unique_ptr<ports::Store> store;
      if (std::string(kind) == "memory") {
        store = std::make_unique<adapters::memory::MemoryStore>();
      } else {
        const auto path = dir / ("claims-" + std::to_string(workers) + ".db");
        store = std::move(*adapters::sqlite::SqliteStore::open({path.string()}));
      }
      const double rate = claimRate(*store, ids, clock, jobs, workers);
      if (reference.count(workers) == 0) reference[workers] = rate;
      std::printf("%-10s %-8d %-8d %.0f  (%.3fx of memory)\n", kind, workers, jobs, rate,
                  rate / reference[workers]);
    }
  }
  adapters::memory::MemoryStore memory;
  const double memoryAudit = auditRate(memory, ids, clock, 20000);
  auto sqlite = std::move(*adapters::sqlite::SqliteStore::open({(dir / "audit.db").string()}));
  const double sqliteAudit = auditRate(*sqlite, ids, clock, 20000);
  std::printf("audit appends/s: memory %.0f, sqlite %.0f (%.3fx of memory)\n", memoryAudit,
              sqliteAudit, sqliteAudit / memoryAudit);
  sqlite.reset();
  std::filesystem::remove_all(dir);
  return 0;
}
