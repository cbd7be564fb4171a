// The ssh module against a real sshd and nginx started here on 127.0.0.1: nginx serves TLS from
// the files the module writes and is reloaded by the module's reload command. Deliver changes
// what nginx serves, restore puts the exact bytes and modes back, a dry-run changes no byte and
// no modification time, and each refusal has its code: HOST_KEY_MISMATCH (nothing written),
// AUTH_FAILED, CONNECT_FAILED within the timeout, RELOAD_FAILED (files put back).
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>

#include <certsteward/adapters/distribution/ssh_host_key_reader.hpp>
#include <certsteward/adapters/distribution/ssh_module.hpp>
#include "support/free_port.hpp"
#include "support/nginx_server.hpp"
#include "support/sshd_server.hpp"
#include "support/test_certificates.hpp"
#include "support/tls_probe.hpp"

using namespace certsteward;
using namespace std::chrono_literals;

namespace {

// A file's bytes, mode and modification time (nanoseconds).
struct FileMark {
  std::string bytes;
  unsigned mode = 0;
  std::int64_t mtime = 0;
  friend bool operator==(const FileMark&, const FileMark&) = default;
};

FileMark mark(const std::filesystem::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0) return {};
  return {testing::readLog(p), static_cast<unsigned>(st.st_mode & 07777),
          static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

std::map<std::string, FileMark> marks(const std::filesystem::path& dir) {
  std::map<std::string, FileMark> out;
  for (const auto& e : std::filesystem::directory_iterator(dir))
    out[e.path().filename().string()] = mark(e.path());
  return out;
}

domain::CertificateVersion version(const testing::TestMaterial& m, const std::string& serial) {
  return {"cert-1",     "localhost",       {"localhost"}, serial,
          std::nullopt, m.certificate_pem, m.chain_pem,   m.private_key_pem};
}

struct SshFixture {
  testing::TestMaterial v1 = testing::makeTestMaterial("localhost");
  testing::TestMaterial v2 = testing::makeTestMaterial("localhost");
  testing::SshdServer sshd;
  testing::NginxServer nginx{v1};
  adapters::distribution::SshModule module;
  std::vector<std::string> steps;

  // scripts/setup installs both: a missing server fails the test, it never passes unseen.
  bool ready() {
    REQUIRE_MESSAGE(sshd.available(), sshd.reason());
    REQUIRE_MESSAGE(nginx.available(), nginx.reason());
    return true;
  }
  ports::TargetAccess target(std::string secret = {}, std::string kind = "ssh_key") {
    ports::TargetAccess t;
    t.name = "web-1";
    const auto site = nginx.site().string();
    t.settings = {{"host", "127.0.0.1"},
                  {"port", std::to_string(sshd.port())},
                  {"cert_path", site + "/cert.pem"},
                  {"fullchain_path", site + "/fullchain.pem"},
                  {"key_path", site + "/key.pem"},
                  {"reload_command", nginx.reloadCommand()},
                  {"host_key_sha256", sshd.hostKeyFingerprint()},
                  {"verify_address", nginx.address()},
                  {"verify_server_name", "localhost"}};
    domain::Credential c;
    c.kind = kind;
    c.username = testing::SshdServer::user();
    t.credential = c;
    t.secret = secret.empty() ? sshd.clientKey() : secret;
    t.timeout = 10s;
    t.step = [this](const std::string& s) { steps.push_back(s); };
    return t;
  }
};

}  // namespace

TEST_CASE(
    "ssh module: deliver changes what nginx serves, restore serves the previous bytes again") {
  SshFixture fx;
  if (!fx.ready()) return;
  REQUIRE(testing::servedLeaf(fx.nginx.port()).pem == fx.v1.certificate_pem);
  // A key left readable by its installer: its set-aside copy is still 0600.
  REQUIRE(::chmod((fx.nginx.site() / "key.pem").c_str(), 0644) == 0);
  const auto before = marks(fx.nginx.site());

  const auto delivered = fx.module.deliver(fx.target(), version(fx.v2, "2"));
  REQUIRE_MESSAGE(delivered.ok, delivered.error_code << ": " << delivered.error);
  CHECK(testing::servedLeafSoon(fx.nginx.port(), fx.v2.certificate_pem) == fx.v2.certificate_pem);
  const auto after = marks(fx.nginx.site());
  CHECK(after.at("fullchain.pem").bytes == fx.v2.certificate_pem + fx.v2.chain_pem);
  CHECK(after.at("key.pem").bytes == fx.v2.private_key_pem);
  CHECK(after.at("key.pem").mode == 0600);
  CHECK(after.at("cert.pem").mode == 0644);
  CHECK(after.count("fullchain.pem.certsteward-new") == 0);  // no temporary left behind
  // The replaced files are kept beside, exactly.
  CHECK(after.at("key.pem.certsteward-previous").bytes == before.at("key.pem").bytes);
  CHECK(after.at("key.pem.certsteward-previous").mode == 0600);
  CHECK(after.at("cert.pem.certsteward-previous").mode == before.at("cert.pem").mode);
  CHECK(std::find(fx.steps.begin(), fx.steps.end(), "reloaded") != fx.steps.end());
  for (const auto& s : fx.steps)
    CHECK(s.find("PRIVATE KEY") == std::string::npos);

  const auto restored = fx.module.restore(fx.target(), nullptr);
  REQUIRE_MESSAGE(restored.ok, restored.error_code << ": " << restored.error);
  const auto back = marks(fx.nginx.site());
  for (const char* f : {"cert.pem", "fullchain.pem", "key.pem"}) {
    CHECK(back.at(f).bytes == before.at(f).bytes);
    CHECK(back.at(f).mode == (std::string(f) == "key.pem" ? 0600 : before.at(f).mode));
  }
  // nginx reloads asynchronously: the previous leaf is served again within a moment.
  std::string served;
  for (int i = 0; i < 50 && served != fx.v1.certificate_pem; ++i) {
    served = testing::servedLeaf(fx.nginx.port()).pem;
    if (served != fx.v1.certificate_pem) std::this_thread::sleep_for(100ms);
  }
  CHECK(served == fx.v1.certificate_pem);
}

TEST_CASE(
    "ssh module: a dry-run changes no byte and no modification time, and says what it would do") {
  SshFixture fx;
  if (!fx.ready()) return;
  const auto before = marks(fx.nginx.site());
  const auto plan = fx.module.plan(fx.target(), version(fx.v2, "2"));
  REQUIRE_MESSAGE(plan.ok, plan.error_code << ": " << plan.error);
  CHECK(marks(fx.nginx.site()) == before);
  REQUIRE(plan.changes.size() == 4);
  CHECK(plan.changes[0].action == "replace");
  CHECK(plan.changes[3].action == "run");
  // Unchanged content is reported as such.
  const auto same = fx.module.plan(fx.target(), version(fx.v1, "1"));
  REQUIRE(same.ok);
  CHECK(same.changes[0].action == "unchanged");
  // A directory that cannot be written and a reload command that does not exist fail the plan.
  auto t = fx.target();
  t.settings["cert_path"] = "/nonexistent-dir/cert.pem";
  CHECK(fx.module.plan(t, version(fx.v2, "2")).error_code == "WRITE_FAILED");
  t = fx.target();
  t.settings["reload_command"] = "/usr/sbin/no-such-reloader --now";
  CHECK(fx.module.plan(t, version(fx.v2, "2")).error_code == "RELOAD_FAILED");
  CHECK(marks(fx.nginx.site()) == before);
}

TEST_CASE("ssh module: a wrong host key is refused before anything is written") {
  SshFixture fx;
  if (!fx.ready()) return;
  const auto before = marks(fx.nginx.site());
  auto t = fx.target();
  t.settings["host_key_sha256"] = "SHA256:" + std::string(43, 'A');
  const auto refused = fx.module.deliver(t, version(fx.v2, "2"));
  CHECK(refused.error_code == "HOST_KEY_MISMATCH");
  CHECK(refused.error.find(fx.sshd.hostKeyFingerprint()) != std::string::npos);
  CHECK(marks(fx.nginx.site()) == before);
  CHECK(fx.module.check(t).error_code == "HOST_KEY_MISMATCH");
}

TEST_CASE(
    "ssh module: a key or password the server refuses is AUTH_FAILED, a closed port "
    "CONNECT_FAILED") {
  SshFixture fx;
  if (!fx.ready()) return;
  const auto before = marks(fx.nginx.site());
  CHECK(fx.module.deliver(fx.target(fx.sshd.unauthorizedKey()), version(fx.v2, "2")).error_code ==
        "AUTH_FAILED");
  CHECK(fx.module.deliver(fx.target("not-the-password", "password"), version(fx.v2, "2"))
            .error_code == "AUTH_FAILED");
  CHECK(fx.module.check(fx.target("not a key at all")).error_code == "AUTH_FAILED");
  auto closed = fx.target();
  closed.settings["port"] = std::to_string(testing::freeLoopbackPort());
  const auto started = std::chrono::steady_clock::now();
  CHECK(fx.module.deliver(closed, version(fx.v2, "2")).error_code == "CONNECT_FAILED");
  CHECK(std::chrono::steady_clock::now() - started < 10s);
  CHECK(marks(fx.nginx.site()) == before);
  CHECK(fx.module.check(fx.target()).ok);
}

TEST_CASE("ssh module: a reload command that fails puts the previous files back") {
  SshFixture fx;
  if (!fx.ready()) return;
  const auto before = marks(fx.nginx.site());
  auto t = fx.target();
  t.settings["reload_command"] = "echo 'config test failed' >&2; exit 3";
  const auto failed = fx.module.deliver(t, version(fx.v2, "2"));
  CHECK(failed.error_code == "RELOAD_FAILED");
  CHECK(failed.error.find("config test failed") != std::string::npos);
  const auto after = marks(fx.nginx.site());
  for (const char* f : {"cert.pem", "fullchain.pem", "key.pem"}) {
    CHECK(after.at(f).bytes == before.at(f).bytes);
    CHECK(after.at(f).mode == before.at(f).mode);
  }
  CHECK(testing::servedLeafSoon(fx.nginx.port(), fx.v1.certificate_pem) == fx.v1.certificate_pem);
}

TEST_CASE(
    "ssh module: a service that does not pick the new files up is VERIFY_FAILED and put back") {
  SshFixture fx;
  if (!fx.ready()) return;
  auto t = fx.target();
  t.settings["reload_command"] = "true";  // nothing reloads nginx
  const auto started = std::chrono::steady_clock::now();
  const auto failed = fx.module.deliver(t, version(fx.v2, "2"));
  CHECK(failed.error_code == "VERIFY_FAILED");
  CHECK(std::chrono::steady_clock::now() - started < 15s);
  CHECK(testing::readLog(fx.nginx.site() / "cert.pem") == fx.v1.certificate_pem);
}

TEST_CASE("ssh module: a server that accepts but never speaks is TIMEOUT within the timeout") {
  SshFixture fx;
  if (!fx.ready()) return;
  // A listening socket nobody accepts on: the connection completes, no banner ever comes.
  const int silent = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof addr;
  REQUIRE(::bind(silent, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
  REQUIRE(::listen(silent, 8) == 0);
  REQUIRE(::getsockname(silent, reinterpret_cast<sockaddr*>(&addr), &len) == 0);
  auto t = fx.target();
  t.settings["port"] = std::to_string(ntohs(addr.sin_port));
  t.timeout = 2s;
  const auto started = std::chrono::steady_clock::now();
  const auto outcome = fx.module.deliver(t, version(fx.v2, "2"));
  const auto took = std::chrono::steady_clock::now() - started;
  ::close(silent);
  CHECK_MESSAGE(outcome.error_code == "TIMEOUT", outcome.error);
  CHECK(took < 8s);
}

TEST_CASE(
    "ssh module: an SFTP-only account is planned from the permission bits and delivered by SFTP "
    "rename") {
  testing::SshdServer sshd{true};
  REQUIRE_MESSAGE(sshd.available(), sshd.reason());
  const auto material = testing::makeTestMaterial("localhost");
  const auto dir = std::filesystem::temp_directory_path() /
                   ("certsteward-sftp-only-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  ports::TargetAccess t;
  t.name = "sftp-only";
  t.settings = {{"host", "127.0.0.1"},
                {"port", std::to_string(sshd.port())},
                {"cert_path", (dir / "cert.pem").string()},
                {"key_path", (dir / "key.pem").string()},
                {"host_key_sha256", sshd.hostKeyFingerprint()}};
  domain::Credential c;
  c.kind = "ssh_key";
  c.username = testing::SshdServer::user();
  t.credential = c;
  t.secret = sshd.clientKey();
  t.timeout = 10s;
  adapters::distribution::SshModule module;

  const auto plan = module.plan(t, version(material, "1"));
  REQUIRE_MESSAGE(plan.ok, plan.error_code << ": " << plan.error);
  CHECK(plan.changes.at(0).action == "create");
  CHECK(std::filesystem::is_empty(dir));  // nothing written by the plan
  auto missing = t;
  missing.settings["cert_path"] = "/nonexistent-dir/cert.pem";
  CHECK(module.plan(missing, version(material, "1")).error_code == "WRITE_FAILED");

  const auto delivered = module.deliver(t, version(material, "1"));
  REQUIRE_MESSAGE(delivered.ok, delivered.error_code << ": " << delivered.error);
  CHECK(testing::readLog(dir / "cert.pem") == material.certificate_pem);
  CHECK(testing::readLog(dir / "key.pem") == material.private_key_pem);
  CHECK(mark(dir / "key.pem").mode == 0600);
  // A reload command needs a host that runs commands: said so, with the files put back.
  auto reloading = t;
  reloading.settings["reload_command"] = "/bin/true";
  const auto refused =
      module.deliver(reloading, version(testing::makeTestMaterial("localhost"), "2"));
  CHECK_FALSE(refused.ok);
  CHECK(refused.error_code == "RELOAD_FAILED");
  CHECK(testing::readLog(dir / "cert.pem") == material.certificate_pem);
  std::filesystem::remove_all(dir);
}

TEST_CASE("ssh host keys: the key a real sshd offers, through the outbound policy only") {
  testing::SshdServer sshd;
  const auto loopback = std::make_shared<const adapters::common::Outbound>(
      domain::OutboundPolicy({*domain::parseCidr("127.0.0.0/8")}));
  adapters::distribution::SshHostKeyReader reader(loopback);
  auto key = reader.read("127.0.0.1", sshd.port(), std::chrono::seconds{5});
  REQUIRE_MESSAGE(key.ok(), key.error().message);
  // What ssh-keygen -lf prints for the server's key file, and its type.
  CHECK(key->fingerprint == sshd.hostKeyFingerprint());
  CHECK(key->key_type == "ssh-ed25519");

  // Nothing listening: unavailable, in the one phrase of every failed connection.
  auto silent = reader.read("127.0.0.1", testing::freeLoopbackPort(), std::chrono::seconds{2});
  REQUIRE_FALSE(silent.ok());
  CHECK(silent.error().code == domain::ErrorCode::unavailable);
  CHECK(silent.error().message.find("could not connect") != std::string::npos);

  // The default policy refuses loopback: no connection is tried.
  adapters::distribution::SshHostKeyReader strict(
      std::make_shared<const adapters::common::Outbound>(domain::OutboundPolicy{}));
  auto refused = strict.read("127.0.0.1", sshd.port(), std::chrono::seconds{5});
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().reason == adapters::common::kOutboundRefused);
}

TEST_CASE("ssh module: HTTP-01 files go below the webroot over SFTP, never through a link") {
  SshFixture fx;
  if (!fx.ready()) return;
  namespace fs = std::filesystem;
  const fs::path www = fx.nginx.dir() / "www";
  fs::create_directories(www);
  auto t = fx.target();
  t.settings["webroot"] = www.string();
  const std::string token = "evaGxfADs6pSRb2LAv9IZf17Dt3juxGJ-PCt92wr-oA";

  auto put = fx.module.putChallengeFile(t, token, token + ".thumb");
  REQUIRE_MESSAGE(put.ok, put.error_code << ": " << put.error);
  const fs::path file = www / ".well-known/acme-challenge" / token;
  const auto written = mark(file);
  CHECK(written.bytes == token + ".thumb");
  CHECK(written.mode == 0644);
  CHECK(fx.module.removeChallengeFile(t, token).ok);
  CHECK_FALSE(fs::exists(file));
  CHECK(fx.module.removeChallengeFile(t, token).ok);  // absent: fine
  // A token that is not base64url never becomes a path on the host.
  auto hostile = fx.module.putChallengeFile(t, "../../escape", "x");
  CHECK(hostile.error_code == domain::target_error::write_failed);
  CHECK_FALSE(fs::exists(fx.nginx.dir() / "escape"));

  // A link where a directory goes is refused, and nothing lands where it points.
  const fs::path linked = fx.nginx.dir() / "linked";
  fs::create_directories(linked);
  fs::create_directories(fx.nginx.dir() / "elsewhere");
  fs::create_directory_symlink(fx.nginx.dir() / "elsewhere", linked / ".well-known");
  t.settings["webroot"] = linked.string();
  auto refused = fx.module.putChallengeFile(t, token, "x");
  CHECK_FALSE(refused.ok);
  CHECK(refused.error_code == domain::target_error::write_failed);
  CHECK(fs::is_empty(fx.nginx.dir() / "elsewhere"));
}
