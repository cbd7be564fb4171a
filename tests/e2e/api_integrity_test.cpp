// Integrity under crashes and races, on the packaged binary: (1) creates racing a `kill -9`
// leave every acknowledged certificate with its issue job and its audit entry, and nothing
// half-done; (2) two instances on one SQLite file never store more certificates than the free
// plan's cap of one, however their creates interleave.
#include <atomic>
#include <filesystem>
#include <functional>
#include <mutex>
#include <set>
#include <thread>

#include "e2e/api_support.hpp"

using namespace certsteward::testing::api;
namespace ports = certsteward::ports;
namespace domain = certsteward::domain;

namespace {

const std::map<std::string, std::string> kOwnerEnv{
    {"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", kOwner},
    {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", kOwnerPassword}};

struct SharedDir {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("certsteward-integrity-" + std::to_string(::getpid()) + "-" + std::to_string(unique()));
  SharedDir() { std::filesystem::create_directories(dir); }
  ~SharedDir() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::filesystem::path db() const { return dir / "db.sqlite"; }
  std::string config() const { return "store.url = sqlite://" + db().string() + "\n"; }
};

std::string activateUnlimited(HttpClient& http, const Session& owner, const std::string& priv) {
  const std::string key = signedLicense(priv, "lic-crash", "Enterprise unlimited", 0,
                                        unixTimeIn(std::chrono::hours{24}));
  auto r = http.request("POST", "/api/v1/license/activate",
                        json::serialize(json::object{{"license_key", key}}), {bearer(owner)});
  REQUIRE_MESSAGE(r.status == 200, r.body);
  return key;
}

}  // namespace

TEST_CASE("integrity: creates racing a kill -9 leave no certificate without its job and audit") {
  SharedDir shared;
  const auto [priv, pub] = ed25519KeyPairPem();
  std::ofstream(shared.dir / "license.pem") << pub;
  const std::string config =
      shared.config() + "license.public_key_file = " + (shared.dir / "license.pem").string() + "\n";
  std::set<std::string> acknowledged;
  std::string project;
  {
    ServerProcess first(kOwnerEnv, config);
    HttpClient http(first.baseUrl());
    const auto owner = login(http, kOwner, kOwnerPassword);
    activateUnlimited(http, owner, priv);
    project = createProject(http, owner);
    serveZone(http, owner, project, "example.test");
    std::mutex mu;
    std::atomic<bool> stop{false};
    std::vector<std::thread> clients;
    for (int t = 0; t < 4; ++t) {
      clients.emplace_back([&, t] {
        HttpClient mine(first.baseUrl());
        for (int i = 0; i < 2000 && !stop.load(); ++i) {  // bounded; the kill ends it sooner
          HttpResult r;
          try {
            r = mine.request("POST", "/api/v1/projects/" + project + "/certificates",
                             json::serialize(json::object{
                                 {"common_name", "c" + std::to_string(t) + "-" + std::to_string(i) +
                                                     ".example.test"}}),
                             {bearer(owner)});
          } catch (const std::runtime_error&) {
            break;  // the server is gone
          }
          if (r.status == 202 || r.status == 201) {
            boost::system::error_code ec;
            auto v = json::parse(r.body, ec);
            if (!ec) {
              std::lock_guard lock(mu);
              acknowledged.insert(
                  std::string(v.at("certificate").as_object().at("id").as_string()));
            }
          }
        }
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds{1500});
    first.kill9();
    stop = true;
    for (auto& c : clients)
      c.join();
  }
  MESSAGE(acknowledged.size() << " creates acknowledged before the kill");
  REQUIRE(acknowledged.size() > 5);  // the creates really ran before the kill

  // The restarted service opens the same file (and finds nothing to repair).
  ServerProcess second(kOwnerEnv, config);
  HttpClient http(second.baseUrl());
  const auto owner = login(http, kOwner, kOwnerPassword);
  auto store = certsteward::adapters::sqlite::SqliteStore::open({shared.db().string()});
  REQUIRE(store.ok());
  std::set<std::string> audited;
  for (std::int64_t page = 1; page <= 1000; ++page) {
    ports::AuditFilter filter;
    filter.action = "certificate.create";
    auto entries = (*store)->auditLog().list(filter, *domain::makePageRequest(page, 100));
    REQUIRE(entries.ok());
    for (const auto& e : entries->items)
      audited.insert(e.resource_id);
    if (entries->items.size() < 100) break;
  }
  std::set<std::string> stored;
  for (std::int64_t page = 1; page <= 1000; ++page) {
    auto certs = (*store)->certificates().list(project, {}, *domain::makePageRequest(page, 100));
    REQUIRE(certs.ok());
    for (const auto& c : certs->items) {
      stored.insert(c.id);
      ports::JobFilter byCert;
      byCert.certificate_id = c.id;
      auto jobs = (*store)->jobs().list(project, byCert, *domain::makePageRequest(1, 5));
      REQUIRE(jobs.ok());
      CHECK_MESSAGE(jobs->total == 1, "certificate " << c.id << " has " << jobs->total << " jobs");
      CHECK_MESSAGE(audited.count(c.id) == 1, "certificate " << c.id << " has no audit entry");
    }
    if (certs->items.size() < 100) break;
  }
  for (const auto& id : acknowledged)
    CHECK_MESSAGE(stored.count(id) == 1, "acknowledged certificate " << id << " was lost");
  CHECK(audited.size() == stored.size());  // no audit entry of a certificate that is not there
  // The chain is intact after the crash.
  auto verify =
      http.request("POST", "/api/v1/audit-logs/verify?limit=10000", "{}", {bearer(owner)});
  REQUIRE_MESSAGE(verify.status == 200, verify.body);
  CHECK(parse(verify).at("intact").as_bool());
}

TEST_CASE("integrity: two instances on one SQLite file never pass the free plan's cap") {
  SharedDir shared;
  ServerProcess a(kOwnerEnv, shared.config());
  ServerProcess b(kOwnerEnv, shared.config());
  HttpClient httpA(a.baseUrl());
  const auto owner = login(httpA, kOwner, kOwnerPassword);
  const auto project = createProject(httpA, owner);
  serveZone(httpA, owner, project, "example.test");
  const std::string certs = "/api/v1/projects/" + project + "/certificates";
  for (int round = 0; round < 12; ++round) {
    std::atomic<int> ready{0};
    std::atomic<int> admitted{0};
    std::vector<std::string> ids(2);
    std::vector<std::thread> racers;
    for (int side = 0; side < 2; ++side) {
      racers.emplace_back([&, side] {
        HttpClient http(side == 0 ? a.baseUrl() : b.baseUrl());
        ++ready;
        while (ready.load() < 2) {  // bounded by the other thread's start
          std::this_thread::yield();
        }
        auto r = http.request("POST", certs,
                              json::serialize(json::object{
                                  {"common_name", "cap" + std::to_string(round) + "-" +
                                                      std::to_string(side) + ".example.test"}}),
                              {bearer(owner)});
        if (r.status == 202 || r.status == 201) {
          ++admitted;
          ids[static_cast<std::size_t>(side)] =
              std::string(json::parse(r.body).at("certificate").as_object().at("id").as_string());
        } else {
          CHECK_MESSAGE(r.status == 409, r.body);  // the licence limit
        }
      });
    }
    for (auto& t : racers)
      t.join();
    CHECK_MESSAGE(admitted.load() == 1, "round " << round << ": " << admitted.load() << " stored");
    auto listed = httpA.request("GET", certs, "", {bearer(owner)});
    REQUIRE(listed.status == 200);
    CHECK(parse(listed).at("total").as_int64() == 1);
    for (const auto& id : ids) {
      if (!id.empty()) {
        REQUIRE(httpA.request("DELETE", certs + "/" + id, "", {bearer(owner)}).status == 204);
      }
    }
  }
}

TEST_CASE("integrity: a cut tail of the audit log is reported against a recorded head") {
  SharedDir shared;
  ServerProcess instance(kOwnerEnv, shared.config());
  HttpClient http(instance.baseUrl());
  const auto owner = login(http, kOwner, kOwnerPassword);
  for (int i = 0; i < 3; ++i)
    createProject(http, owner);
  auto head = http.request("GET", "/api/v1/audit-logs/head", "", {bearer(owner)});
  REQUIRE(head.status == 200);
  const auto recorded = parse(head);
  const auto sequence = recorded.at("sequence").as_int64();
  const auto checksum = str(recorded, "checksum");
  REQUIRE(sequence >= 4);
  CHECK(checksum.size() == 64);
  // Someone with access to the file deletes the newest entries: what is left verifies alone.
  const std::string sql = "sqlite3 '" + shared.db().string() +
                          "' 'DELETE FROM audit_log WHERE seq >= " + std::to_string(sequence - 1) +
                          "'";
  REQUIRE(std::system(sql.c_str()) == 0);
  const std::string query =
      "/api/v1/audit-logs/verify?limit=1000&expected_sequence=" + std::to_string(sequence) +
      "&expected_checksum=" + checksum;
  auto verify = http.request("POST", query, "{}", {bearer(owner)});
  REQUIRE_MESSAGE(verify.status == 200, verify.body);
  const auto result = parse(verify);
  CHECK_FALSE(result.at("intact").as_bool());
  const auto& breaks = result.at("breaks").as_array();
  REQUIRE(breaks.size() == 1);
  CHECK(str(breaks[0].as_object(), "reason") == "head_missing");
}

namespace {

// Walks `path` (a cursor endpoint) to its end with `limit`, calling `grow` between calls, and
// returns the ids read, in order (bounded: at most 200 calls).
std::vector<std::string> walk(HttpClient& http, const Session& who, const std::string& path,
                              const char* key, int limit, const std::function<void(int)>& grow) {
  std::vector<std::string> ids;
  std::string cursor;
  int quiet = 0;
  for (int call = 0; call < 200 && quiet < 2; ++call) {
    const std::string url = path + (path.find('?') == std::string::npos ? "?" : "&") +
                            "limit=" + std::to_string(limit) +
                            (cursor.empty() ? "" : "&cursor=" + cursor);
    auto r = http.request("GET", url, "", {bearer(who)});
    REQUIRE_MESSAGE(r.status == 200, r.body);
    const auto body = parse(r);
    const auto& items = body.at(key).as_array();
    for (const auto& item : items) {
      const auto& o = item.as_object();
      ids.push_back(o.contains("id") ? std::string(o.at("id").as_string())
                                     : std::string(o.at("message").as_string()));
    }
    cursor = str(body, "next_cursor");
    quiet = items.empty() ? quiet + 1 : 0;
    grow(call);
  }
  return ids;
}

}  // namespace

TEST_CASE("cursors: the audit log, events and job logs are walked while they grow") {
  SharedDir shared;
  ServerProcess instance(kOwnerEnv, shared.config());
  HttpClient http(instance.baseUrl());
  const auto owner = login(http, kOwner, kOwnerPassword);
  const auto project = createProject(http, owner);

  // The audit log: new entries land while it is being read; each is read once, in chain order.
  int created = 0;
  const auto audited = walk(http, owner, "/api/v1/audit-logs", "logs", 3, [&](int call) {
    if (call < 6) {
      createProject(http, owner);
      ++created;
    }
  });
  auto all = http.request("GET", "/api/v1/audit-logs?page_size=100", "", {bearer(owner)});
  const auto everything = parse(all);
  std::vector<std::string> expected;
  for (const auto& e : everything.at("logs").as_array())
    expected.insert(expected.begin(), std::string(e.as_object().at("id").as_string()));
  CHECK(created == 6);
  CHECK(audited == expected);

  // Events and job logs, written by another process on the same file while they are read.
  auto store = certsteward::adapters::sqlite::SqliteStore::open({shared.db().string()});
  REQUIRE(store.ok());
  certsteward::adapters::crypto::SystemClock clock;
  certsteward::adapters::crypto::ObjectIdGenerator ids(clock);
  // This instance's store is the shared file (plantJob would write the instance's own path).
  auto planted =
      domain::newJob(ids.next(), project, domain::JobType::issue_certificate, clock.now());
  const std::string job = planted.id;
  REQUIRE((*store)->jobs().enqueue(planted).ok());
  std::vector<std::string> eventIds;
  int line = 0;
  const auto addEvent = [&] {
    domain::Event e;
    e.id = ids.next();
    e.kind = domain::EventKind::job_failed;
    e.project_id = project;
    e.resource_id = job;
    e.message = "event";
    e.at = clock.now() - std::chrono::hours{eventIds.size() % 2 ? 1 : 0};  // out of time order
    REQUIRE((*store)->events().record(e).ok());
    eventIds.push_back(e.id);
  };
  const auto addLine = [&] {
    REQUIRE((*store)
                ->jobLogs()
                .append(domain::JobLogEntry{job, clock.now(), domain::LogLevel::info,
                                            "line " + std::to_string(line++)})
                .ok());
  };
  for (int i = 0; i < 5; ++i) {
    addEvent();
    addLine();
  }
  const auto events =
      walk(http, owner, "/api/v1/projects/" + project + "/events", "events", 2, [&](int call) {
        if (call < 8) addEvent();
      });
  CHECK(events == eventIds);
  const auto lines = walk(http, owner, "/api/v1/projects/" + project + "/jobs/" + job + "/logs",
                          "logs", 4, [&](int call) {
                            if (call < 5) addLine();
                          });
  REQUIRE(lines.size() == static_cast<std::size_t>(line));
  for (int i = 0; i < line; ++i)
    CHECK(lines[static_cast<std::size_t>(i)] == "line " + std::to_string(i));

  // Cursor and page do not mix; a cursor of another log or a forged one is refused.
  CHECK(http.request("GET", "/api/v1/audit-logs?limit=5&page=2", "", {bearer(owner)}).status ==
        400);
  CHECK(http.request("GET", "/api/v1/audit-logs?cursor=zz", "", {bearer(owner)}).status == 400);
  const auto eventsCursor =
      str(parse(http.request("GET", "/api/v1/projects/" + project + "/events?limit=1", "",
                             {bearer(owner)})),
          "next_cursor");
  CHECK(http.request("GET", "/api/v1/audit-logs?cursor=" + eventsCursor, "", {bearer(owner)})
            .status == 400);
  auto clamped = http.request("GET", "/api/v1/audit-logs?limit=100000", "", {bearer(owner)});
  CHECK(parse(clamped).at("limit").as_int64() == 500);
}
