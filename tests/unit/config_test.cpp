// Configuration: the file format, environment overrides, and errors that name the key.
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <certsteward/app/config.hpp>
#include <certsteward/app/logging.hpp>
#include <certsteward/app/store_factory.hpp>

using namespace certsteward;

namespace {

const std::string kSecret(40, 's');

std::map<std::string, std::string> base() {
  return {{"jwt.secret", kSecret}, {"secrets.key", std::string(32, 'k')}};
}

auto noEnv = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };

}  // namespace

TEST_CASE("config: defaults") {
  const auto c = app::loadConfig(base(), noEnv);
  REQUIRE(c.ok());
  CHECK(c->listen_port == 8080);
  CHECK(c->access_token_ttl == std::chrono::minutes{15});
  CHECK(c->refresh_token_ttl == std::chrono::days{7});
  CHECK(c->worker_max_concurrency == 4);
  CHECK(c->worker_max_concurrent_discovery == 50);
  CHECK(c->worker_poll_interval == std::chrono::seconds{2});
  CHECK(c->worker_lock_ttl == std::chrono::minutes{5});
  CHECK(c->worker_shutdown_wait == std::chrono::seconds{55});
  CHECK(c->scheduler_interval == std::chrono::hours{1});
  CHECK(c->scheduler_leader_ttl == std::chrono::seconds{90});
  CHECK(c->scheduler_heartbeat == std::chrono::seconds{30});
  CHECK(c->audit_signing_key == kSecret);  // falls back to the JWT secret
  CHECK_FALSE(c->secure_cookies);
  CHECK(c->trusted_proxies.empty());
}

TEST_CASE("config: environment variables override the file") {
  CHECK(app::environmentName("jwt.access_token_ttl") == "CERTSTEWARD_JWT_ACCESS_TOKEN_TTL");
  auto values = base();
  values["jwt.access_token_ttl"] = "30m";
  values["server.listen"] = "0.0.0.0:9000";
  const auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "CERTSTEWARD_JWT_ACCESS_TOKEN_TTL") return "10m";
    if (name == "CERTSTEWARD_WORKER_MAX_CONCURRENCY") return "0";
    return std::nullopt;
  };
  const auto c = app::loadConfig(values, env);
  REQUIRE(c.ok());
  CHECK(c->access_token_ttl == std::chrono::minutes{10});
  CHECK(c->worker_max_concurrency == 0);
  CHECK(c->listen_address == "0.0.0.0");
  CHECK(c->listen_port == 9000);
}

TEST_CASE("config: invalid values stop start-up with a message naming the key") {
  const struct {
    const char* key;
    const char* value;
  } rows[] = {
      {"jwt.access_token_ttl", "2h"},  // must not exceed 1 hour
      {"jwt.access_token_ttl", "fifteen"},
      {"jwt.secret", "short"},
      {"server.listen", "8080"},
      {"server.listen", "127.0.0.1:70000"},
      {"server.secure_cookies", "yes"},
      {"server.trusted_proxies", "10.0.0.0/33"},
      {"server.trusted_proxies", "example.com"},
      {"network.outbound_allow", "10.0.0.0/33"},
      {"network.outbound_allow", "127.1"},
      {"network.outbound_allow", "intranet.example"},
      {"worker.max_concurrency", "-1"},
      {"scheduler.interval", "0s"},
      {"store.url", "mysql://db"},
      {"log.level", "loud"},
      {"no.such.key", "1"},
  };
  for (const auto& r : rows) {
    CAPTURE(r.key);
    CAPTURE(r.value);
    auto values = base();
    values[r.key] = r.value;
    const auto c = app::loadConfig(values, noEnv);
    REQUIRE_FALSE(c.ok());
    CHECK(c.error().message.find(r.key) != std::string::npos);
  }
}

TEST_CASE("config: network.outbound_allow is a list of ranges, none by default") {
  auto c = app::loadConfig(base(), noEnv);
  REQUIRE(c.ok());
  CHECK(c->outbound_allow.empty());
  CHECK(c->trusted_proxies.empty());  // no proxy trusted by default
  auto values = base();
  values["network.outbound_allow"] = " 10.20.0.0/16, 127.0.0.1 ,fd00::/8,";
  c = app::loadConfig(values, noEnv);
  REQUIRE(c.ok());
  REQUIRE(c->outbound_allow.size() == 3);
  CHECK(c->outbound_allow[0].bits == 16);
  CHECK(c->outbound_allow[1].bits == 32);
  CHECK(c->outbound_allow[2].bits == 8);
}

TEST_CASE("config: required secrets are named when missing") {
  auto c = app::loadConfig({{"secrets.key", std::string(32, 'k')}}, noEnv);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.find("jwt.secret") != std::string::npos);
  c = app::loadConfig({{"jwt.secret", kSecret}}, noEnv);
  REQUIRE_FALSE(c.ok());
  CHECK(c.error().message.find("secrets.key") != std::string::npos);
}

TEST_CASE("config: the file format") {
  const auto parsed = app::parseConfigText(
      "# comment\n\nserver.listen = 127.0.0.1:0\n  jwt.issuer=\"my issuer\"  \n");
  REQUIRE(parsed.ok());
  CHECK(parsed->at("server.listen") == "127.0.0.1:0");
  CHECK(parsed->at("jwt.issuer") == "my issuer");
  const auto bad = app::parseConfigText("ok = 1\nthis line has no equals sign\n");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().message.find("line 2") != std::string::npos);
  CHECK(app::knownKeys().size() >= 20);
}

TEST_CASE("config: sqlite URLs name a file path") {
  CHECK(*app::sqlitePath("sqlite:///var/lib/certsteward/certsteward.db") ==
        "/var/lib/certsteward/certsteward.db");
  CHECK(*app::sqlitePath("sqlite://./data/certsteward.db") == "./data/certsteward.db");
  CHECK_FALSE(app::sqlitePath("sqlite://").ok());
  CHECK(app::openStore("postgres://x").error().message.find("store.url") != std::string::npos);
}

namespace {

// The keys docs/configuration.md documents: the first backticked cell of each table row.
std::vector<std::string> documentedKeys() {
  std::ifstream in(std::string(CERTSTEWARD_SOURCE_DIR) + "/docs/configuration.md");
  REQUIRE(in.good());
  std::vector<std::string> keys;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.starts_with("| `")) continue;
    const auto end = line.find('`', 3);
    const std::string key = line.substr(3, end - 3);
    if (key.find('.') != std::string::npos) keys.push_back(key);
  }
  return keys;
}

}  // namespace

TEST_CASE("config: one key table drives parsing, environment overrides and the documentation") {
  const auto documented = documentedKeys();
  REQUIRE(documented.size() >= 40);
  const std::set<std::string> known(app::knownKeys().begin(), app::knownKeys().end());
  const std::set<std::string> docs(documented.begin(), documented.end());
  CHECK(known == docs);  // nothing undocumented, nothing documented that is not parsed
  // Every key behaves the same from the file and from CERTSTEWARD_<KEY>: an override that were
  // ignored would accept what the file refuses. Every key refuses at least one of the values.
  for (const auto& key : documented) {
    bool refused = false;
    for (const std::string value : {"not a valid value", ""}) {
      CAPTURE(key);
      CAPTURE(value);
      auto fromFile = base();
      fromFile[key] = value;
      const auto viaFile = app::loadConfig(fromFile, noEnv);
      const std::string name = app::environmentName(key);
      const auto viaEnv =
          app::loadConfig(base(), [&](const std::string& n) -> std::optional<std::string> {
            if (n == name) return value;
            return std::nullopt;
          });
      REQUIRE(viaFile.ok() == viaEnv.ok());
      if (!viaFile.ok()) CHECK(viaFile.error().message == viaEnv.error().message);
      refused = refused || !viaFile.ok();
    }
    CHECK_MESSAGE(refused, key << " accepts both probe values: the test cannot see its override");
  }
}

TEST_CASE("config: auth.bcrypt_cost and license.public_key_file come from the environment too") {
  const auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "CERTSTEWARD_AUTH_BCRYPT_COST") return "11";
    if (name == "CERTSTEWARD_LICENSE_PUBLIC_KEY_FILE") return "/nonexistent/license.pem";
    return std::nullopt;
  };
  const auto c = app::loadConfig(base(), env);
  REQUIRE_FALSE(c.ok());  // the file it names does not exist: so it was read from the env
  CHECK(c.error().message.find("license.public_key_file") != std::string::npos);
  const auto cost = app::loadConfig(base(), [](const std::string& n) -> std::optional<std::string> {
    if (n == "CERTSTEWARD_AUTH_BCRYPT_COST") return "11";
    return std::nullopt;
  });
  REQUIRE(cost.ok());
  CHECK(cost->bcrypt_cost == 11);
}

TEST_CASE("config check: every problem, secrets masked, sources named") {
  const auto env = [](const std::string& name) -> std::optional<std::string> {
    if (name == "CERTSTEWARD_WORKER_POLL_INTERVAL") return "fast";
    return std::nullopt;
  };
  const auto report = app::checkConfig({{"jwt.secret", "a-secret-that-is-long-enough-0123456"},
                                        {"server.listen", "nowhere"},
                                        {"store.url", "mongodb://u:pw@127.0.0.1:27017/x"},
                                        {"no.such.key", "1"}},
                                       env);
  // All four broken things, not the first only: the listener, the interval from the
  // environment, the unknown key, the missing secrets.key.
  REQUIRE(report.problems.size() == 4);
  const auto mentions = [&](const char* word) {
    return std::any_of(report.problems.begin(), report.problems.end(),
                       [&](const std::string& p) { return p.find(word) != std::string::npos; });
  };
  for (const char* word : {"server.listen", "worker.poll_interval", "no.such.key", "secrets.key"})
    CHECK_MESSAGE(mentions(word), word);
  const auto line = [&](const std::string& key) {
    for (const auto& l : report.lines)
      if (l.key == key) return l;
    FAIL("no line for " << key);
    return app::ConfigReport::Line{};
  };
  CHECK(line("jwt.secret").value.find("a-secret") == std::string::npos);
  CHECK(line("jwt.secret").source == "file");
  CHECK(line("store.url").value == "mongodb://********@127.0.0.1:27017/x");
  CHECK(line("worker.poll_interval").source == "environment");
  CHECK(line("auth.bcrypt_cost").source == "default");
  CHECK(report.lines.size() == app::knownKeys().size());
}

TEST_CASE("config check: a PostgreSQL URL's password is masked in the user part and the query") {
  const auto shownUrl = [](const std::string& url) {
    const auto report = app::checkConfig(
        {{"jwt.secret", "a-secret-that-is-long-enough-0123456"}, {"store.url", url}},
        [](const std::string&) -> std::optional<std::string> { return std::nullopt; });
    for (const auto& l : report.lines)
      if (l.key == "store.url") return l.value;
    return std::string("(no line)");
  };
  CHECK(shownUrl("postgresql://cs:pw1@db1,db2/cs?target_session_attrs=read-write") ==
        "postgresql://********@db1,db2/cs?target_session_attrs=read-write");
  CHECK(shownUrl("postgresql://db1/cs?user=cs&password=pw2&sslmode=verify-full") ==
        "postgresql://db1/cs?user=cs&password=********&sslmode=verify-full");
  CHECK(shownUrl("postgres://db1/cs?password=pw3") == "postgres://db1/cs?password=********");
  // libpq decodes the key: so does the mask.
  CHECK(shownUrl("postgresql://db1/cs?%70assword=pw4&sslPassword=pw5") ==
        "postgresql://db1/cs?%70assword=********&sslPassword=********");
}

TEST_CASE("config: store.url takes postgresql:// and the pool keys their bounds") {
  const auto none = [](const std::string&) -> std::optional<std::string> { return std::nullopt; };
  const std::map<std::string, std::string> base{
      {"jwt.secret", "a-secret-that-is-long-enough-0123456"},
      {"secrets.key", "another-secret-that-is-long-enough-789"},
      {"store.url", "postgresql://cs@127.0.0.1/cs"},
      {"store.pool_size", "16"},
      {"store.statement_timeout", "30s"}};
  const auto c = app::loadConfig(base, none);
  REQUIRE_MESSAGE(c.ok(), (c.ok() ? "" : c.error().message));
  CHECK(c->store_url == "postgresql://cs@127.0.0.1/cs");
  CHECK(c->store_pool_size == 16);
  CHECK(c->store_statement_timeout == std::chrono::seconds{30});
  auto bad = base;
  bad["store.pool_size"] = "0";
  CHECK_FALSE(app::loadConfig(bad, none).ok());
  bad = base;
  bad["store.url"] = "mysql://x/y";
  const auto refused = app::loadConfig(bad, none);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("postgresql://") != std::string::npos);
}

TEST_CASE("logging: JSON strings escape quotes, backslashes and control characters") {
  CHECK(app::jsonEscape("plain") == "plain");
  CHECK(app::jsonEscape("say \"hi\"") == "say \\\"hi\\\"");
  CHECK(app::jsonEscape("a\\b") == "a\\\\b");
  CHECK(app::jsonEscape("line\nbreak\ttab") == "line\\u000abreak\\u0009tab");
  CHECK(app::jsonEscape("caf\xc3\xa9") == "caf\xc3\xa9");  // UTF-8 stays
}

TEST_CASE("config: log.format and log.access") {
  auto values = base();
  values["log.format"] = "json";
  values["log.access"] = "false";
  auto c = app::loadConfig(values, noEnv);
  REQUIRE(c.ok());
  CHECK(c->log_format == "json");
  CHECK_FALSE(c->log_access);
  values["log.format"] = "xml";
  CHECK(app::loadConfig(values, noEnv).error().message.find("log.format") != std::string::npos);
}

TEST_CASE("config: server.tls keys, their pairs and what they turn on") {
  auto c = app::loadConfig(base(), noEnv);
  REQUIRE(c.ok());
  CHECK_FALSE(c->tlsEnabled());
  CHECK_FALSE(c->secure_cookies);
  const std::string file = "/proc/self/cmdline";  // readable wherever the tests run
  struct Row {
    std::map<std::string, std::string> values;
    const char* problem;  // nullptr: accepted
  };
  const Row rows[] = {
      {{{"server.tls.certificate_file", file}, {"server.tls.key_file", file}}, nullptr},
      {{{"server.tls.certificate_id", "6b07fbb31dac3699ff3b5a2c"}}, nullptr},
      {{{"server.tls.certificate_id", "6b07fbb31dac3699ff3b5a2c"},
        {"server.tls.hsts", "365d"},
        {"server.tls.redirect_listen", "0.0.0.0:80"}},
       nullptr},
      {{{"server.tls.certificate_file", file}}, "go together"},
      {{{"server.tls.key_file", file}}, "go together"},
      {{{"server.tls.certificate_file", "/no/such/file"}, {"server.tls.key_file", file}},
       "cannot read /no/such/file"},
      {{{"server.tls.hsts", "1d"}}, "need TLS on"},
      {{{"server.tls.redirect_listen", "127.0.0.1:80"}}, "need TLS on"},
      {{{"server.tls.certificate_id", "6b07fbb31dac3699ff3b5a2c"},
        {"server.tls.redirect_listen", "nowhere"}},
       "server.tls.redirect_listen"},
      {{{"server.tls.certificate_id", "../x y"}}, "not a certificate id"},
      {{{"server.tls.certificate_id", "6b07fbb31dac3699ff3b5a2c"}, {"server.tls.hsts", "1000d"}},
       "server.tls.hsts"},
      {{{"server.tls.certificate_id", "6b07fbb31dac3699ff3b5a2c"},
        {"server.tls.reload_interval", "10ms"}},
       "server.tls.reload_interval"},
  };
  for (const auto& row : rows) {
    auto values = base();
    for (const auto& [k, v] : row.values)
      values[k] = v;
    CAPTURE(row.problem);
    const auto loaded = app::loadConfig(values, noEnv);
    if (row.problem == nullptr) {
      REQUIRE_MESSAGE(loaded.ok(), loaded.error().message);
      CHECK(loaded->tlsEnabled());
      CHECK(loaded->secure_cookies);  // cookies over TLS are Secure, whatever was set
    } else {
      REQUIRE_FALSE(loaded.ok());
      CHECK(loaded.error().message.find(row.problem) != std::string::npos);
    }
  }
  auto values = base();
  values["server.tls.certificate_id"] = "6b07fbb31dac3699ff3b5a2c";
  values["server.tls.redirect_listen"] = "[::]:8080";
  values["server.tls.hsts"] = "1h";
  c = app::loadConfig(values, noEnv);
  REQUIRE(c.ok());
  CHECK(c->tls_redirect_address == "::");
  CHECK(c->tls_redirect_port == 8080);
  CHECK(c->tls_hsts == std::chrono::hours{1});
}

TEST_CASE("config check: plain HTTP on a reachable address is warned about, not with TLS") {
  auto values = base();
  values["server.listen"] = "0.0.0.0:8080";
  const auto warned = app::checkConfig(values, noEnv);
  CHECK(warned.problems.empty());
  REQUIRE(warned.warnings.size() == 1);
  CHECK(warned.warnings[0].find("plain HTTP") != std::string::npos);
  values["server.tls.certificate_id"] = "6b07fbb31dac3699ff3b5a2c";
  CHECK(app::checkConfig(values, noEnv).warnings.empty());
  values.erase("server.tls.certificate_id");
  values["server.listen"] = "127.0.0.1:8080";
  CHECK(app::checkConfig(values, noEnv).warnings.empty());
}
