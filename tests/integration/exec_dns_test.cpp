// The exec DNS provider running real hooks: one that drives a real bind9 (started by the test
// on 127.0.0.1) with nsupdate and the secret from its environment, and small ones that fail,
// hang or print the secret. Also the factory's rule that only the operator's commands run.
#include <doctest/doctest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include <certsteward/adapters/dns/dns_provider_factory.hpp>
#include <certsteward/adapters/dns/exec_dns_provider.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>
#include "support/bind9_fixture.hpp"

using namespace certsteward;
using namespace std::chrono_literals;
using adapters::dns::ExecDnsProvider;
using adapters::dns::ExecSettings;
using testing::bind9;
using testing::Bind9Server;

namespace {

// A directory of hook scripts, removed afterwards.
struct Hooks {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("certsteward-hooks-" + std::to_string(::getpid()));
  Hooks() { std::filesystem::create_directories(dir); }
  ~Hooks() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  std::string write(const std::string& name, const std::string& body) {
    const auto path = dir / name;
    std::ofstream(path) << "#!/bin/sh\n" << body;
    ::chmod(path.c_str(), 0700);
    return path.string();
  }
};

// A hook as an operator would write it: nsupdate against the primary, key from the environment.
std::string nsupdateHook(Hooks& hooks) {
  const std::string script =
      "set -eu\n"
      "case \"$1\" in present) op=add ;; cleanup) op=delete ;; *) exit 2 ;; esac\n"
      "nsupdate -t 3 -y \"hmac-sha256:" +
      std::string(Bind9Server::kKey256) +
      ":$CERTSTEWARD_DNS_SECRET\" <<END\n"
      "server 127.0.0.1 " +
      std::to_string(bind9().port()) +
      "\n"
      "zone $CERTSTEWARD_DNS_ZONE\n"
      "update $op $2 $CERTSTEWARD_DNS_TTL TXT \"$3\"\n"
      "send\n"
      "END\n";
  return hooks.write("nsupdate-hook", script);
}

ExecSettings execSettings(const std::string& command, const std::string& secret = {}) {
  ExecSettings s;
  s.command = command;
  s.secret = secret;
  s.timeout = 10s;
  s.check_servers = {bind9().address()};
  s.request_timeout = 2s;
  s.poll_interval = 50ms;
  return s;
}

const ports::TxtRecord kRecord{"example.test.", "_acme-challenge.hook.example.test.", "hook-value",
                               60};

std::vector<std::string> txtNow(const std::string& name) {
  adapters::dns::Rfc2136Settings s;
  s.server = bind9().address();
  s.timeout = 2s;
  auto values = adapters::dns::Rfc2136DnsProvider(s).lookupTxt(bind9().address(), name);
  REQUIRE(values.ok());
  return *values;
}

}  // namespace

TEST_CASE("exec dns: an nsupdate hook adds, shows and removes the record in bind9") {
  Hooks hooks;
  ExecDnsProvider dns(execSettings(nsupdateHook(hooks), Bind9Server::kSecret256));
  const auto added = dns.present(kRecord);
  REQUIRE_MESSAGE(added.ok(), (added.ok() ? "" : added.error().message));
  CHECK(dns.waitVisible(kRecord, 5s).ok());
  CHECK(txtNow(kRecord.name) == std::vector<std::string>{"hook-value"});
  REQUIRE(dns.cleanup(kRecord).ok());
  CHECK(txtNow(kRecord.name).empty());
}

TEST_CASE("exec dns: a failing hook reports its last line, never the secret") {
  Hooks hooks;
  // nsupdate refused by bind9 (wrong key): nothing written, the failure explained.
  ExecDnsProvider wrong(
      execSettings(nsupdateHook(hooks), "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="));
  const auto refused = wrong.present(kRecord);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::unavailable);
  CHECK(refused.error().message.find("exited with status") != std::string::npos);
  CHECK(refused.error().message.find("AAAAAAAAAAAAAAAA") == std::string::npos);
  CHECK(txtNow(kRecord.name).empty());
  // A hook that prints the secret: masked in the error.
  ExecDnsProvider leaky(execSettings(
      hooks.write("leaky", "echo \"token is $CERTSTEWARD_DNS_SECRET\"\nexit 3\n"), "s3cr3t-t0ken"));
  const auto failed = leaky.present(kRecord);
  REQUIRE_FALSE(failed.ok());
  CHECK(failed.error().message.find("exited with status 3: token is ***") != std::string::npos);
  CHECK(failed.error().message.find("s3cr3t-t0ken") == std::string::npos);
}

TEST_CASE("exec dns: the hook gets its arguments and a minimal environment") {
  Hooks hooks;
  const auto out = (hooks.dir / "seen").string();
  ExecDnsProvider dns(execSettings(
      hooks.write("recorder", "{ echo \"$@\"; env | sort; } > " + out + "\n"), "the-secret"));
  REQUIRE(dns.cleanup(kRecord).ok());
  std::ifstream in(out);
  std::string args;
  std::getline(in, args);
  CHECK(args == "cleanup _acme-challenge.hook.example.test. hook-value");
  std::vector<std::string> names;
  for (std::string line; std::getline(in, line);)
    names.push_back(line.substr(0, line.find('=')));
  for (const char* expected :
       {"CERTSTEWARD_DNS_SECRET", "CERTSTEWARD_DNS_TTL", "CERTSTEWARD_DNS_ZONE", "PATH"}) {
    CHECK(std::count(names.begin(), names.end(), expected) == 1);
  }
  // The shell adds PWD (and may add SHLVL, _); nothing of the server's environment arrives.
  for (const auto& name : names) {
    CHECK_MESSAGE((name.starts_with("CERTSTEWARD_DNS_") || name == "PATH" || name == "PWD" ||
                   name == "SHLVL" || name == "_"),
                  name);
  }
}

TEST_CASE("exec dns: a hook that hangs is stopped at the timeout") {
  Hooks hooks;
  auto s = execSettings(hooks.write("hangs", "sleep 30 &\nwait\n"));
  s.timeout = 300ms;
  ExecDnsProvider dns(s);
  const auto started = std::chrono::steady_clock::now();
  const auto hung = dns.present(kRecord);
  CHECK(std::chrono::steady_clock::now() - started < 5s);
  REQUIRE_FALSE(hung.ok());
  CHECK(hung.error().message.find("did not finish within 300 ms") != std::string::npos);
}

TEST_CASE("exec dns: only the operator's commands run") {
  Hooks hooks;
  const auto allowed = hooks.write("allowed", "exit 0\n");
  adapters::dns::DefaultDnsProviderFactory factory({}, {allowed});
  domain::DnsCredential c;
  c.name = "hook";
  c.provider = "exec";
  c.settings["command"] = allowed;
  CHECK(factory.make(c, "").ok());
  c.settings["command"] = "/bin/sh";  // a project admin choosing what the server runs
  auto refused = factory.make(c, "");
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == domain::ErrorCode::failed_precondition);
  CHECK(refused.error().message.find("dns.exec_commands") != std::string::npos);
  c.settings.erase("command");
  CHECK_FALSE(factory.make(c, "").ok());
  c.settings["command"] = allowed;
  c.settings["propagation_delay"] = "soon";
  CHECK_FALSE(factory.make(c, "").ok());
  adapters::dns::DefaultDnsProviderFactory none;  // nothing listed: exec is off
  c.settings["propagation_delay"] = "0";
  CHECK_FALSE(none.make(c, "").ok());
}
