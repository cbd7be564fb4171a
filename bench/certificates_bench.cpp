// Certificates at scale on SQLite: with N certificates (default 1,000,000) in one project,
// the time to open the store, to read a list page (page_size 100, status filter, sorted by
// expires_at), and to run the renewal sweep query that returns the 10,000 due certificates —
// with the memory store on the same data as the reference. Prints figures only.
// Usage: certsteward_certificates_bench [count] [sqlite file to keep]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include <certsteward/adapters/crypto/object_id_generator.hpp>
#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_store.hpp>
#include "bench_support.hpp"

using namespace certsteward;
using namespace certsteward::bench;

int main(int argc, char** argv) {
  const std::int64_t count = argc > 1 ? std::atoll(argv[1]) : 1000000;
  const bool keep = argc > 2;
  const std::string path = keep ? argv[2]
                                : (std::filesystem::temp_directory_path() /
                                   ("certsteward-certs-" + std::to_string(::getpid()) + ".db"))
                                      .string();
  adapters::crypto::SystemClock clock;
  adapters::crypto::ObjectIdGenerator ids(clock);
  const domain::Timestamp now = clock.now();

  {
    auto store = std::move(*adapters::sqlite::SqliteStore::open({path}));
    auto existing = store->certificates().countAll();
    if (*existing < count) {
      const auto start = Steady::now();
      for (std::int64_t i = *existing; i < count; ++i) {
        if (!store->certificates().create(makeCertificate(ids, now, i))) std::abort();
      }
      std::printf("sqlite: inserted %lld certificates in %.1f s (%.0f/s)\n",
                  static_cast<long long>(count - *existing), millis(start) / 1000,
                  static_cast<double>(count - *existing) / (millis(start) / 1000));
    }
  }
  const auto openStart = Steady::now();
  auto sqlite = std::move(*adapters::sqlite::SqliteStore::open({path}));
  const double openMs = millis(openStart);
  const long rssBefore = rssKiB();
  const Figures s = measure(*sqlite, now);
  std::printf(
      "sqlite: open %.1f ms; list page (100, status, by expires_at) %.2f ms (%zu rows); "
      "due sweep %.1f ms (%zu due); process RSS %ld MiB\n",
      openMs, s.list_ms, s.listed, s.sweep_ms, s.due, std::max(rssBefore, rssKiB()) / 1024);
  sqlite.reset();

  adapters::memory::MemoryStore memory;
  for (std::int64_t i = 0; i < count; ++i) {
    if (!memory.certificates().create(makeCertificate(ids, now, i))) std::abort();
  }
  const Figures m = measure(memory, now);
  std::printf("memory: list page %.2f ms (%zu rows); due sweep %.1f ms (%zu due); RSS %ld MiB\n",
              m.list_ms, m.listed, m.sweep_ms, m.due, rssKiB() / 1024);
  std::printf("ratio sqlite/memory: list %.3fx, sweep %.3fx\n", s.list_ms / m.list_ms,
              s.sweep_ms / m.sweep_ms);
  if (!keep) {
    std::filesystem::remove(path);
    std::filesystem::remove(path + "-wal");
    std::filesystem::remove(path + "-shm");
  }
  return 0;
}
