// PostgreSQL next to SQLite and memory, in one run on one machine: jobs claimed + completed per
// second by 1 and 4 workers of one instance and by 3 instances × 4 workers (a store object each,
// as each server process has its own), then N certificates (default 1,000,000) in one project:
// a list page, the renewal sweep of the 10,000 due, and the process's memory. PostgreSQL is
// started here from its own data directory with fsync on, every commit durable
// (synchronous_commit on, the default); SQLite runs as the server runs it (WAL,
// synchronous=NORMAL: a commit is durable at the next checkpoint). Prints figures only.
// Usage: certsteward_postgres_bench [jobs] [certificates]
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <certsteward/adapters/crypto/object_id_generator.hpp>
#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/adapters/store/postgres/pg_database.hpp>
#include <certsteward/adapters/store/postgres/pg_store.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_store.hpp>
#include "bench_support.hpp"
#include "e2e/http_client.hpp"
#include "e2e/server_process.hpp"
#include "support/postgres_server.hpp"

using namespace certsteward;
using namespace certsteward::bench;

int main(int argc, char** argv) {
  const int jobs = argc > 1 ? std::atoi(argv[1]) : 10000;
  const std::int64_t certificates = argc > 2 ? std::atoll(argv[2]) : 1000000;
  testing::PostgresServer server(/*durable=*/true);
  if (!server.available()) {
    std::fprintf(stderr, "PostgreSQL: %s\n", server.reason().c_str());
    return 1;
  }
  adapters::crypto::SystemClock clock;
  adapters::crypto::ObjectIdGenerator ids(clock);
  const auto dir = std::filesystem::temp_directory_path() /
                   ("certsteward-pgbench-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto admin = std::move(*adapters::postgres::PgDatabase::open(server.url()));
  int databases = 0;
  // A fresh database; `extra`: URL options.
  const auto freshPostgres = [&](const std::string& extra = {}) {
    const std::string name = "bench" + std::to_string(databases++);
    admin->exec("CREATE DATABASE " + name);
    return server.url(name) + extra;
  };
  const auto openPostgres = [](const std::string& url) {
    auto store = adapters::postgres::PgStore::open(url);
    if (!store) {
      std::fprintf(stderr, "open: %s\n", store.error().message.c_str());
      std::abort();
    }
    return std::move(*store);
  };

  std::printf("jobs claimed + completed per second (%d jobs each)\n", jobs);
  std::printf("%-44s %-10s %s\n", "store", "claims/s", "ratio to sqlite (same shape)");
  struct Shape {
    int instances;
    int workers;
  };
  for (const Shape shape : {Shape{1, 1}, Shape{1, 4}, Shape{3, 4}}) {
    const std::string label =
        std::to_string(shape.instances) + " instance(s) x " + std::to_string(shape.workers);
    adapters::memory::MemoryStore memory;
    const double memoryRate =
        shape.instances == 1 ? claimRate({&memory}, ids, clock, jobs, shape.workers) : 0;
    std::vector<std::unique_ptr<ports::Store>> sqlite;
    const auto file =
        dir / ("claims-" + label.substr(0, 1) + std::to_string(shape.workers) + ".db");
    for (int i = 0; i < shape.instances; ++i)
      sqlite.push_back(std::move(*adapters::sqlite::SqliteStore::open({file.string()})));
    std::vector<ports::Store*> sqliteStores;
    for (auto& s : sqlite)
      sqliteStores.push_back(s.get());
    const double sqliteRate = claimRate(sqliteStores, ids, clock, jobs, shape.workers);
    // Durable commits, then commits durable a moment later (synchronous_commit=off: what
    // SQLite's synchronous=NORMAL gives; a crash of the machine may lose the last few, never
    // corrupts).
    const auto pgRate = [&](const std::string& options) {
      const std::string url = freshPostgres(options);
      std::vector<std::unique_ptr<ports::Store>> pg;
      for (int i = 0; i < shape.instances; ++i)
        pg.push_back(openPostgres(url));
      std::vector<ports::Store*> pgStores;
      for (auto& s : pg)
        pgStores.push_back(s.get());
      return claimRate(pgStores, ids, clock, jobs, shape.workers);
    };
    const double durable = pgRate("");
    const double asynchronous = pgRate("?options=-csynchronous_commit%3Doff");
    if (shape.instances == 1) {
      std::printf("%-44s %-10.0f %.3fx\n", ("memory, " + label).c_str(), memoryRate,
                  memoryRate / sqliteRate);
    }
    std::printf("%-44s %-10.0f 1.000x\n", ("sqlite, " + label).c_str(), sqliteRate);
    std::printf("%-44s %-10.0f %.3fx\n", ("postgresql, " + label).c_str(), durable,
                durable / sqliteRate);
    std::printf("%-44s %-10.0f %.3fx\n", ("postgresql synchronous_commit=off, " + label).c_str(),
                asynchronous, asynchronous / sqliteRate);
  }

  if (certificates > 0) {
    const domain::Timestamp now = clock.now();
    std::printf("\n%lld certificates in one project\n", static_cast<long long>(certificates));
    const long rssStart = rssKiB();
    {
      auto pg = openPostgres(freshPostgres());
      fill(*pg, ids, now, certificates, "postgres");
      admin->exec("CHECKPOINT");
      const auto vacuum = std::move(*adapters::postgres::PgDatabase::open(
          server.url("bench" + std::to_string(databases - 1))));
      vacuum->exec("VACUUM ANALYZE certificates");  // as autovacuum would after a bulk load
      const Figures f = measure(*pg, now);
      std::printf(
          "postgres list page (100, status, by expires_at) %.2f ms (%zu rows); due sweep %.1f ms "
          "(%zu due); process RSS %ld MiB (%+ld MiB over the start)\n",
          f.list_ms, f.listed, f.sweep_ms, f.due, rssKiB() / 1024, (rssKiB() - rssStart) / 1024);
      // The packaged server on the same database: its memory once ready and after the metrics
      // (which count the certificates) and a readiness check.
      testing::ServerProcess serve(
          {}, "store.url = " + server.url("bench" + std::to_string(databases - 1)) + "\n");
      testing::HttpClient http(serve.baseUrl());
      const long ready = rssKiBOf(serve.pid());
      const bool answered = http.request("GET", "/readyz").status == 200 &&
                            http.request("GET", "/metrics").status == 200;
      std::printf("certsteward serve on it: RSS %ld MiB when ready, %ld MiB after /metrics%s\n",
                  ready / 1024, rssKiBOf(serve.pid()) / 1024, answered ? "" : " (NOT ANSWERED)");
    }
    {
      auto sqlite =
          std::move(*adapters::sqlite::SqliteStore::open({(dir / "certificates.db").string()}));
      fill(*sqlite, ids, now, certificates, "sqlite");
      const Figures f = measure(*sqlite, now);
      std::printf(
          "sqlite   list page (100, status, by expires_at) %.2f ms (%zu rows); due sweep %.1f ms "
          "(%zu due); process RSS %ld MiB\n",
          f.list_ms, f.listed, f.sweep_ms, f.due, rssKiB() / 1024);
    }
  }
  std::filesystem::remove_all(dir);
  return 0;
}
