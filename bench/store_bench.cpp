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
#include "bench_support.hpp"

#include <unistd.h>
#include <filesystem>

using namespace certsteward;

namespace {

double auditRate(ports::Store& store, ports::IdGenerator& ids, const ports::Clock& clock, int n) {
  adapters::crypto::OpenSslMac mac(std::string(32, 'k'));
  services::AuditSealer sealer(mac);
  const auto start = bench::Steady::now();
  for (int i = 0; i < n; ++i) {
    domain::AuditEntry e;
    e.id = ids.next();
    e.timestamp = clock.now();
    e.action = "certificate.create";
    e.resource_type = "certificate";
    if (!store.auditLog().append(e, sealer).ok()) std::abort();
  }
  return n / bench::seconds(start);
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
      const double rate = bench::claimRate({store.get()}, ids, clock, jobs, workers);
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
