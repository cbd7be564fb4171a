// Bind9Server: a real bind9 (`named -g`) started by a test on 127.0.0.1 at a free port, primary
// for the zones "example.test" and "delegated.test" with RFC 2136 updates allowed to two TSIG
// keys (hmac-sha256 and hmac-sha512), and for "foreign.test" (no updates), in its own temporary
// directory. It answers recursive queries from 127.0.0.1 the way a CA's resolver does, chasing a
// CNAME from one of its zones into another, with a root zone of its own (no Internet), and CAA
// records under caa/deny/alias/account/wild/critical.foreign.test. CNAMEs
// delegate challenges into delegated.test: _acme-challenge.app.example.test and
// _acme-challenge.www.foreign.test (the latter through a second hop), and
// _acme-challenge.loop.foreign.test is a loop; _acme-challenge.acme.example.test points at the
// acme-dns stand-in's first account (AcmeDnsStandIn::kFirstSubdomain); stopped (SIGTERM, then
// SIGKILL) and removed by the destructor. available() is false, with a reason, when bind9 is not
// installed.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "support/child_process.hpp"
#include "support/free_port.hpp"

namespace certsteward::testing {

class Bind9Server : public LocalServer {
 public:
  static constexpr const char* kZone = "example.test";
  static constexpr const char* kDelegatedZone = "delegated.test";
  static constexpr const char* kKey256 = "certsteward-256";
  static constexpr const char* kSecret256 = "WnOc6EFnPM5O5ISIgtQznMn0ADhqqmA7rcM9RNAGD6Y=";
  static constexpr const char* kKey512 = "certsteward-512";
  static constexpr const char* kSecret512 =
      "cgN3A/fdItH83G/GB3KgwiPT3/KqZHolR05c5BWgSkH2sF06ffLyBItp/Fh9MbWwo+6bslsENTbifdFvGgHegQ==";

  Bind9Server() {
    if (!std::filesystem::exists("/usr/sbin/named")) {
      reason_ = "bind9 is not installed (scripts/setup installs it)";
      return;
    }
    dir_ = freshServerDir("bind9");
    port_ = freeLoopbackPort();
    const auto d = dir_.string();
    std::ofstream(dir_ / "named.conf")
        << "options { directory \"" << d << "\"; pid-file \"" << d << "/named.pid\";\n"
        << "  session-keyfile \"" << d << "/session.key\"; managed-keys-directory \"" << d
        << "\";\n  listen-on port " << port_ << " { 127.0.0.1; }; listen-on-v6 { none; };\n"
        << "  recursion yes; allow-recursion { 127.0.0.1; }; dnssec-validation no; notify no; };\n"
        << "controls { };\n"
        << "key \"" << kKey256 << "\" { algorithm hmac-sha256; secret \"" << kSecret256
        << "\"; };\n"
        << "key \"" << kKey512 << "\" { algorithm hmac-sha512; secret \"" << kSecret512
        << "\"; };\n"
        << "zone \"" << kZone << "\" { type primary; file \"" << d << "/example.test.zone\";\n"
        << "  allow-update { key \"" << kKey256 << "\"; key \"" << kKey512 << "\"; }; };\n"
        << "zone \"" << kDelegatedZone << "\" { type primary; file \"" << d
        << "/delegated.test.zone\";\n"
        << "  allow-update { key \"" << kKey256 << "\"; key \"" << kKey512 << "\"; }; };\n"
        << "zone \"foreign.test\" { type primary; file \"" << d << "/foreign.test.zone\"; };\n"
        << "zone \".\" { type primary; file \"" << d << "/root.zone\"; };\n";
    // A root of its own: every name outside its zones is NXDOMAIN at once, never asked of the
    // Internet.
    std::ofstream(dir_ / "root.zone") << "$TTL 60\n"
                                      << "@ IN SOA ns. hostmaster.invalid. 1 60 60 600 60\n"
                                      << "@ IN NS ns.\n"
                                      << "ns. IN A 127.0.0.1\n";
    std::ofstream(dir_ / "example.test.zone")
        << "$TTL 60\n"
        << "@ IN SOA ns.example.test. hostmaster.example.test. 1 60 60 600 60\n"
        << "@ IN NS ns.example.test.\n"
        << "ns IN A 127.0.0.1\n"
        << "* IN A 127.0.0.1\n"
        << "_acme-challenge.app IN CNAME app.delegated.test.\n"
        << "_acme-challenge.acme IN CNAME 8e5700ea-a4bf-41c7-8a77-e990661dcc6a.delegated.test.\n";
    std::ofstream(dir_ / "delegated.test.zone")
        << "$TTL 60\n"
        << "@ IN SOA ns.example.test. hostmaster.example.test. 1 60 60 600 60\n"
        << "@ IN NS ns.example.test.\n";
    std::ofstream(dir_ / "foreign.test.zone")
        << "$TTL 60\n"
        << "@ IN SOA ns.example.test. hostmaster.example.test. 1 60 60 600 60\n"
        << "@ IN NS ns.example.test.\n"
        << "www IN A 127.0.0.1\n"
        << "_acme-challenge.www IN CNAME hop.foreign.test.\n"
        << "hop IN CNAME www-foreign.delegated.test.\n"
        << "_acme-challenge.loop IN CNAME loop2.foreign.test.\n"
        << "loop2 IN CNAME _acme-challenge.loop.foreign.test.\n"
        // CAA (RFC 8659) for the CAA checks: one CA allowed; another CA only; through a CNAME;
        // one account only; no wildcards; a critical unknown tag.
        << "caa IN CAA 0 issue \"ca.test\"\n"
        << "caa IN CAA 0 iodef \"mailto:security@foreign.test\"\n"
        << "deny IN CAA 0 issue \"other-ca.test\"\n"
        << "alias IN CNAME caa.foreign.test.\n"
        << "account IN CAA 0 issue \"ca.test; accounturi=https://ca.test/acct/1\"\n"
        << "wild IN CAA 0 issue \"ca.test\"\n"
        << "wild IN CAA 0 issuewild \";\"\n"
        << "critical IN CAA 128 tbs \"unknown\"\n";
    std::fflush(nullptr);  // or the child's freopen() writes the parent's pending output again
    pid_ = ::fork();
    if (pid_ == 0) {
      const std::string log = (dir_ / "named.log").string();
      FILE* out = std::freopen(log.c_str(), "w", stdout);
      FILE* err = std::freopen(log.c_str(), "a", stderr);
      (void)out;
      (void)err;
      const std::string conf = (dir_ / "named.conf").string();
      ::execl("/usr/sbin/named", "named", "-c", conf.c_str(), "-g", "-4", nullptr);
      ::_exit(127);
    }
    // "running on Linux ..." is logged at start; the "running" that matters is the line of its
    // own after "all zones loaded": before it an update is answered SERVFAIL or not at all.
    reason_ = waitUntilReady(pid_, dir_ / "named.log", "named", [](const std::string& text) {
      const auto loaded = text.find("all zones loaded");
      return loaded != std::string::npos && text.find(" running\n", loaded) != std::string::npos;
    });
  }

  std::string address() const { return "127.0.0.1:" + std::to_string(port_); }
  int port() const { return port_; }
};

}  // namespace certsteward::testing
