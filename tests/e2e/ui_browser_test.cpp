// The web UI in a real browser: the packaged binary wired to Pebble and bind9, with an sshd and
// an nginx as a distribution target (all started here, on 127.0.0.1), driven by Playwright in
// Debian's headless Chromium (ui/tests/browser.mjs).
// This file starts the servers and hands their addresses to the browser script; the script's
// assertions decide the outcome, and its output is shown when it fails.
#include <doctest/doctest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "e2e/server_process.hpp"
#include "support/bind9_server.hpp"
#include "support/nginx_server.hpp"
#include "support/pebble_server.hpp"
#include "support/sshd_server.hpp"
#include "support/test_certificates.hpp"

namespace {

using certsteward::testing::Bind9Server;
using certsteward::testing::NginxServer;
using certsteward::testing::PebbleOptions;
using certsteward::testing::PebbleServer;
using certsteward::testing::ServerProcess;
using certsteward::testing::SshdServer;

std::string quoted(const std::string& s) {
  std::string out = "'";
  for (const char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// Runs `command` through the shell; its exit status and everything it printed.
std::pair<int, std::string> run(const std::string& command) {
  std::string output;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return {-1, "popen failed"};
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr)
    output += buffer.data();
  const int status = ::pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

}  // namespace

TEST_CASE(
    "web UI in Chromium: sign-in, configuration, issuance, downloads, roles, CSRF, refresh, "
    "OTP, accessibility") {
  if (!std::filesystem::exists(CERTSTEWARD_CHROMIUM)) {
    FAIL("Chromium is missing at " CERTSTEWARD_CHROMIUM " (scripts/setup installs it)");
  }
  Bind9Server dns;
  REQUIRE_MESSAGE(dns.available(), dns.reason());
  PebbleServer ca{PebbleOptions{dns.address(), {}, 3600}};
  REQUIRE_MESSAGE(ca.available(), ca.reason());
  SshdServer sshd;
  REQUIRE_MESSAGE(sshd.available(), sshd.reason());
  NginxServer nginx(certsteward::testing::makeTestMaterial("site.example.test"));
  REQUIRE_MESSAGE(nginx.available(), nginx.reason());
  // A licence of five certificates, made with the operator's tool, for the bulk actions (the free
  // plan holds one): the browser activates it on the Licence page.
  const auto licenseDir = std::filesystem::temp_directory_path() /
                          ("certsteward-ui-license-" + std::to_string(::getpid()));
  struct RemoveDir {
    std::filesystem::path dir;
    ~RemoveDir() {
      std::error_code ignored;
      std::filesystem::remove_all(dir, ignored);
    }
  } removeLicenseDir{licenseDir};
  const std::string tool = CERTSTEWARD_SOURCE_DIR "/scripts/make-license";
  REQUIRE(run(quoted(tool) + " --new-signing-key " + quoted(licenseDir.string())).first == 0);
  const auto [licenseStatus, licenseOutput] =
      run(quoted(tool) + " " + quoted((licenseDir / "license-signing.pem").string()) +
          " 'UI test team' 5 $(( $(date +%s) + 86400 ))");
  REQUIRE_MESSAGE(licenseStatus == 0, licenseOutput);
  const std::string licenseKey = licenseOutput.substr(0, licenseOutput.find('\n'));

  ServerProcess server{
      {{"CERTSTEWARD_BOOTSTRAP_ADMIN_USERNAME", "root"},
       {"CERTSTEWARD_BOOTSTRAP_ADMIN_PASSWORD", "correct horse battery"}},
      "worker.enabled = true\nworker.poll_interval = 200ms\nacme.ca_bundle = " + ca.caFile() +
          "\nacme.poll_interval = 100ms\ndns.poll_interval = 50ms\n"
          "worker.backoff_base = 100ms\nworker.backoff_cap = 1s\n"
          "dns.propagation_timeout = 10s\njwt.access_token_ttl = 30s\n"
          "dns.resolvers = " +
          dns.address() +
          "\n"
          "distribution.timeout = 10s\nnetwork.outbound_allow = 127.0.0.0/8\n"
          "license.public_key_file = " +
          (licenseDir / "license-public.pem").string() + "\n"};

  const std::map<std::string, std::string> env{
      {"CERTSTEWARD_URL", server.baseUrl()},
      {"LICENSE_KEY", licenseKey},
      {"CERTSTEWARD_ADMIN", "root"},
      {"CERTSTEWARD_ADMIN_PASSWORD", "correct horse battery"},
      {"PEBBLE_DIRECTORY", ca.directoryUrl()},
      {"DNS_SERVER", dns.address()},
      {"TSIG_KEY_NAME", Bind9Server::kKey256},
      {"TSIG_SECRET", Bind9Server::kSecret256},
      {"DNS_ZONE", Bind9Server::kZone},
      {"SSH_PORT", std::to_string(sshd.port())},
      {"SSH_USER", SshdServer::user()},
      {"SSH_CLIENT_KEY", sshd.clientKey()},
      {"SSH_HOST_KEY", sshd.hostKeyFingerprint()},
      {"NGINX_SITE", nginx.site().string()},
      {"NGINX_RELOAD", nginx.reloadCommand()},
      {"NGINX_PORT", std::to_string(nginx.port())},
      {"CHROMIUM", CERTSTEWARD_CHROMIUM},
      {"UI_SCREENSHOTS", CERTSTEWARD_SCREENSHOT_DIR},
      {"UI_SIZES", CERTSTEWARD_UI_SIZES},
  };
  std::string command;
  for (const auto& [k, v] : env)
    command += k + "=" + quoted(v) + " ";
  command +=
      quoted(CERTSTEWARD_NODE) + " " + quoted(CERTSTEWARD_SOURCE_DIR "/ui/tests/browser.mjs");
  const auto [status, output] = run(command);
  if (status != 0) {
    // The failing step and its error first: a CI summary keeps the first lines of a failure.
    const auto last_step = output.rfind("step:");
    const auto from = last_step == std::string::npos ? 0 : output.rfind('\n', last_step);
    FAIL_CHECK("the browser test failed (exit "
               << status << ") in\n"
               << output.substr(from == std::string::npos ? 0 : from, 6000));
  }
  MESSAGE(output);
  if (status != 0) FAIL("--- server log ---\n" << server.log());
}
