// PowerDnsServer: a real PowerDNS Authoritative server (`pdns_server` with the gsqlite3 backend)
// started by a test on 127.0.0.1, DNS and its HTTP API each on a free port, in its own temporary
// directory, with the zone "example.test." created through the API; stopped (SIGTERM, then
// SIGKILL) and removed by the destructor. available() is false, with a reason, when PowerDNS is
// not installed or does not start.
#pragma once

#include <sqlite3.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <certsteward/adapters/common/http_client.hpp>
#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class PowerDnsServer : public LocalServer {
 public:
  static constexpr const char* kZone = "example.test.";
  static constexpr const char* kApiKey = "pdns-test-api-key";

  PowerDnsServer() {
    const std::filesystem::path schema =
        "/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql";
    if (!std::filesystem::exists("/usr/sbin/pdns_server") || !std::filesystem::exists(schema)) {
      reason_ =
          "PowerDNS is not installed (scripts/setup installs pdns-server and "
          "pdns-backend-sqlite3)";
      return;
    }
    dir_ = freshServerDir("pdns");
    port_ = freeLoopbackPort();
    apiPort_ = freeLoopbackPort();
    const auto d = dir_.string();
    if (auto made = createDatabase(schema, dir_ / "pdns.sqlite3"); !made.empty()) {
      reason_ = made;
      return;
    }
    std::ofstream(dir_ / "pdns.conf")
        << "launch=gsqlite3\ngsqlite3-database=" << d << "/pdns.sqlite3\n"
        << "local-address=127.0.0.1\nlocal-port=" << port_ << "\n"
        << "api=yes\napi-key=" << kApiKey << "\n"
        << "webserver=yes\nwebserver-address=127.0.0.1\nwebserver-port=" << apiPort_ << "\n"
        << "webserver-allow-from=127.0.0.0/8\nsocket-dir=" << d << "\n"
        << "guardian=no\ndaemon=no\ndisable-syslog=yes\nloglevel=4\n";
    std::fflush(nullptr);  // or the child's freopen() writes the parent's pending output again
    pid_ = ::fork();
    if (pid_ == 0) {
      const std::string log = (dir_ / "pdns.log").string();
      FILE* out = std::freopen(log.c_str(), "w", stdout);
      FILE* err = std::freopen(log.c_str(), "a", stderr);
      (void)out;
      (void)err;
      const std::string configDir = "--config-dir=" + d;
      ::execl("/usr/sbin/pdns_server", "pdns_server", configDir.c_str(), nullptr);
      ::_exit(127);
    }
    reason_ = waitUntilReady(pid_, dir_ / "pdns.log", "pdns_server", [](const std::string& text) {
      return text.find("ready to distribute questions") != std::string::npos;
    });
    if (reason_.empty()) reason_ = createZone();
  }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
  std::string apiUrl() const { return "http://127.0.0.1:" + std::to_string(apiPort_); }

 private:
  static std::string createDatabase(const std::filesystem::path& schema,
                                    const std::filesystem::path& file) {
    std::ifstream in(schema);
    std::stringstream sql;
    sql << in.rdbuf();
    sqlite3* db = nullptr;
    if (sqlite3_open(file.c_str(), &db) != SQLITE_OK) {
      sqlite3_close(db);
      return "cannot create the PowerDNS database";
    }
    char* error = nullptr;
    const bool ok = sqlite3_exec(db, sql.str().c_str(), nullptr, nullptr, &error) == SQLITE_OK;
    std::string why = ok ? std::string() : "the PowerDNS schema failed: " + std::string(error);
    sqlite3_free(error);
    sqlite3_close(db);
    return why;
  }

  // The zone, with its SOA, NS and the name server's address, through the API (retried: the
  // webserver may start a moment after the DNS side).
  std::string createZone() const {
    adapters::common::HttpRequest request;
    request.url = apiUrl() + "/api/v1/servers/localhost/zones";
    request.headers = {std::string("X-API-Key: ") + kApiKey, "Content-Type: application/json"};
    request.body = std::string(R"({"name":")") + kZone +
                   R"(","kind":"Native","nameservers":["ns.example.test."],)"
                   R"("rrsets":[{"name":"ns.example.test.","type":"A","ttl":60,)"
                   R"("records":[{"content":"127.0.0.1","disabled":false}]}]})";
    request.timeout = std::chrono::milliseconds{2000};
    std::string last;
    for (int attempt = 0; attempt < 50; ++attempt) {
      auto answer = adapters::common::postHttp(request);
      if (answer && answer->status == 201) return {};
      last = answer ? "HTTP " + std::to_string(answer->status) + " " + answer->body
                    : answer.error().message;
      std::this_thread::sleep_for(std::chrono::milliseconds{100});
    }
    return "PowerDNS did not create the zone: " + last;
  }

  int apiPort_ = 0;
};

// The one PowerDNS a test process shares (started on first use, stopped at exit).
inline PowerDnsServer& powerDns() {
  static PowerDnsServer server;
  return server;
}

}  // namespace certsteward::testing
