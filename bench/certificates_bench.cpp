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

using namespace certsteward;
using Steady = std::chrono::steady_clock;

namespace {

constexpr std::int64_t kDue = 10000;

double millis(Steady::time_point since) {
  return std::chrono::duration<double, std::milli>(Steady::now() - since).count();
}

// The i-th certificate: kDue of them are due for renewal at `now`, the rest renew later.
domain::Certificate makeCertificate(ports::IdGenerator& ids, domain::Timestamp now,
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
  // Due ones expire within 29 days (threshold 30: already due); others in 31..120 days.
  const auto offset = i < kDue ? hours{1 + i % (29 * 24)} : hours{31 * 24 + i % (89 * 24)};
  c.expires_at = now + offset;
  if (i < kDue) c.status = domain::CertificateStatus::active;
  c.next_renewal_at = domain::renewalTime(*c.expires_at, c.renewal_threshold_days);
  c.serial_number = std::to_string(1000000 + i);
  c.private_key_sealed = "v1:" + std::string(120, 'k');
  return c;
}

struct Figures {
  double list_ms = 0;
  double sweep_ms = 0;
  std::size_t listed = 0;
  std::size_t due = 0;
};

Figures measure(ports::Store& store, domain::Timestamp now) {
  Figures f;
  ports::CertificateFilter filter;
  filter.statuses = {domain::CertificateStatus::active};
  filter.sort = ports::CertificateSort::expires_at;
  filter.order = domain::SortOrder::asc;
  // Best of 5: the figure of a warm server, not of the first read after start.
  f.list_ms = 1e9;
  for (int i = 0; i < 5; ++i) {
    const auto start = Steady::now();
    auto page =
        store.certificates().list("bench-project", filter, *domain::makePageRequest(50, 100));
    f.list_ms = std::min(f.list_ms, millis(start));
    if (!page) std::abort();
    f.listed = page->items.size();
  }
  f.sweep_ms = 1e9;
  for (int i = 0; i < 3; ++i) {
    const auto start = Steady::now();
    auto due = store.certificates().dueForRenewal(now, kDue * 2);
    f.sweep_ms = std::min(f.sweep_ms, millis(start));
    if (!due) std::abort();
    f.due = due->size();
  }
  return f;
}

long rssKiB() {
  FILE* f = std::fopen("/proc/self/status", "r");
  if (f == nullptr) return -1;
  char line[256];
  long kb = -1;
  while (std::fgets(line, sizeof line, f) != nullptr) {
    if (std::sscanf(line, "VmRSS: %ld kB", &kb) == 1) break;
  }
  std::fclose(f);
  return kb;
}

}  // namespace

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
