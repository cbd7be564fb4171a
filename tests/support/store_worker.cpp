// store_worker: a separate process acting on a SQLite store, for the multi-process and crash
// tests (tests/integration/sqlite_processes.sh).
//   seed  <db> <count>                       enqueue <count> jobs in project "p"
//   claim <db> <threads> <name> <ttl_ms>     claim + complete until no job is left unfinished;
//                                            prints each completed job id
//   hold  <db> <count> <name> <ttl_ms>       claim <count> jobs, print "held <id>", then wait to
//                                            be killed (at most 120 s)
//   stats <db>                               print "<status> <n>" and "completed_attempts_<k> <n>"
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <certsteward/adapters/crypto/object_id_generator.hpp>
#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/store/sqlite/sqlite_store.hpp>

using namespace certsteward;

namespace {

adapters::crypto::SystemClock gClock;

std::unique_ptr<adapters::sqlite::SqliteStore> open(const std::string& path) {
  auto store = adapters::sqlite::SqliteStore::open({path});
  if (!store) {
    std::fprintf(stderr, "open: %s\n", store.error().message.c_str());
    std::exit(2);
  }
  return std::move(*store);
}

domain::JobContext context(const std::string& name, int ttlMs) {
  domain::JobContext ctx{gClock.now(), name, "", {}};
  ctx.policy.lock_ttl = std::chrono::milliseconds{ttlMs};
  return ctx;
}

std::int64_t unfinished(ports::Store& store) {
  std::int64_t n = 0;
  for (auto s :
       {domain::JobStatus::pending, domain::JobStatus::active, domain::JobStatus::failed}) {
    ports::JobFilter f;
    f.status = s;
    auto page = store.jobs().list("p", f, *domain::makePageRequest(1, 1));
    if (!page) return -1;
    n += page->total;
  }
  return n;
}

int seed(const std::string& db, int count) {
  auto store = open(db);
  adapters::crypto::ObjectIdGenerator ids(gClock);
  for (int i = 0; i < count; ++i) {
    auto job = domain::newJob(ids.next(), "p", domain::JobType::renew_certificate, gClock.now());
    if (!store->jobs().enqueue(job)) return 1;
  }
  return 0;
}

int claim(const std::string& db, int threads, const std::string& name, int ttlMs) {
  auto store = open(db);
  std::mutex out;
  std::vector<std::thread> workers;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds{300};
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      std::string worker = name;
      worker += "-";
      worker += std::to_string(t);
      while (std::chrono::steady_clock::now() < deadline) {
        auto c = store->jobs().claim(domain::Lane::standard, context(worker, ttlMs));
        if (!c) continue;  // busy: try again
        if (!c->claimed) {
          if (unfinished(*store) == 0) return;
          std::this_thread::sleep_for(std::chrono::milliseconds{50});  // wait for held locks
          continue;
        }
        std::this_thread::sleep_for(std::chrono::microseconds{500});  // the job's "work"
        for (int attempt = 0; attempt < 100; ++attempt) {
          auto done = store->jobs().apply(c->claimed->id, domain::JobEvent::succeed,
                                          context(worker, ttlMs));
          if (done) {
            std::lock_guard lock(out);
            std::printf("%s\n", c->claimed->id.c_str());
            break;
          }
          if (done.error().code != domain::ErrorCode::unavailable) {
            std::fprintf(stderr, "complete %s: %s\n", c->claimed->id.c_str(),
                         done.error().message.c_str());
            break;
          }
        }
      }
    });
  }
  for (auto& w : workers)
    w.join();
  return unfinished(*store) == 0 ? 0 : 1;
}

int hold(const std::string& db, int count, const std::string& name, int ttlMs) {
  auto store = open(db);
  for (int held = 0; held < count;) {
    auto c = store->jobs().claim(domain::Lane::standard, context(name, ttlMs));
    if (c && c->claimed) {
      std::printf("held %s\n", c->claimed->id.c_str());
      std::fflush(stdout);
      ++held;
    }
  }
  std::this_thread::sleep_for(std::chrono::seconds{120});
  return 0;
}

int stats(const std::string& db) {
  auto store = open(db);
  std::map<std::string, std::int64_t> counts;
  for (std::int64_t page = 1;; ++page) {
    auto p = store->jobs().list("p", {}, *domain::makePageRequest(page, 100));
    if (!p) return 1;
    for (const auto& j : p->items) {
      ++counts[std::string(nameOf(j.status))];
      if (j.status == domain::JobStatus::completed) {
        ++counts["completed_attempts_" + std::to_string(j.attempts)];
      }
    }
    if (page * 100 >= p->total) break;
  }
  for (const auto& [k, n] : counts)
    std::printf("%s %lld\n", k.c_str(), static_cast<long long>(n));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::vector<std::string> a(argv + 1, argv + argc);
  if (a.size() == 3 && a[0] == "seed") return seed(a[1], std::stoi(a[2]));
  if (a.size() == 5 && a[0] == "claim") return claim(a[1], std::stoi(a[2]), a[3], std::stoi(a[4]));
  if (a.size() == 5 && a[0] == "hold") return hold(a[1], std::stoi(a[2]), a[3], std::stoi(a[4]));
  if (a.size() == 2 && a[0] == "stats") return stats(a[1]);
  std::fprintf(stderr, "usage: store_worker seed|claim|hold|stats ...\n");
  return 2;
}
