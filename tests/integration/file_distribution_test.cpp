// The file module on this machine, with nginx started here serving what it writes: deliver and
// restore through an allowed reload command, the operator's limits (directories, commands), no
// writing through symbolic links, and a dry-run that changes nothing.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include <certsteward/adapters/distribution/file_module.hpp>
#include "support/nginx_server.hpp"
#include "support/test_certificates.hpp"
#include "support/tls_probe.hpp"

using namespace certsteward;
using namespace std::chrono_literals;

namespace {

struct FileFixture {
  testing::TestMaterial v1 = testing::makeTestMaterial("localhost");
  testing::TestMaterial v2 = testing::makeTestMaterial("localhost");
  testing::NginxServer nginx{v1};
  std::string reload;
  std::unique_ptr<adapters::distribution::FileModule> module;

  FileFixture() {
    if (!nginx.available()) return;
    reload = (nginx.dir() / "reload.sh").string();
    std::ofstream(reload) << "#!/bin/sh\nexec " << nginx.reloadCommand() << "\n";
    ::chmod(reload.c_str(), 0755);
    module = std::make_unique<adapters::distribution::FileModule>(
        adapters::distribution::FileModuleSettings{{reload}, {nginx.site().string()}});
  }
  ports::TargetAccess target() {
    ports::TargetAccess t;
    t.name = "local";
    const auto site = nginx.site().string();
    t.settings = {{"fullchain_path", site + "/fullchain.pem"},
                  {"key_path", site + "/key.pem"},
                  {"reload_command", reload},
                  {"verify_address", nginx.address()}};
    t.timeout = 10s;
    return t;
  }
  domain::CertificateVersion version(const testing::TestMaterial& m) {
    return {"c",          "localhost",       {"localhost"}, "2",
            std::nullopt, m.certificate_pem, m.chain_pem,   m.private_key_pem};
  }
  std::string file(const char* name) { return testing::readLog(nginx.site() / name); }
};

}  // namespace

TEST_CASE(
    "file module: deliver through the allowed reload command, restore the exact previous files") {
  FileFixture fx;
  REQUIRE_MESSAGE(fx.nginx.available(), fx.nginx.reason());
  const auto delivered = fx.module->deliver(fx.target(), fx.version(fx.v2));
  REQUIRE_MESSAGE(delivered.ok, delivered.error_code << ": " << delivered.error);
  CHECK(testing::servedLeafSoon(fx.nginx.port(), fx.v2.certificate_pem) == fx.v2.certificate_pem);
  struct stat st {};
  REQUIRE(::stat((fx.nginx.site() / "key.pem").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  // Delivering the same version again changes nothing on disk.
  REQUIRE(::stat((fx.nginx.site() / "fullchain.pem").c_str(), &st) == 0);
  const auto mtime = st.st_mtim.tv_nsec + st.st_mtim.tv_sec * 1000000000L;
  REQUIRE(fx.module->deliver(fx.target(), fx.version(fx.v2)).ok);
  REQUIRE(::stat((fx.nginx.site() / "fullchain.pem").c_str(), &st) == 0);
  CHECK(st.st_mtim.tv_nsec + st.st_mtim.tv_sec * 1000000000L == mtime);

  REQUIRE(fx.module->restore(fx.target(), nullptr).ok);
  CHECK(fx.file("fullchain.pem") == fx.v1.certificate_pem + fx.v1.chain_pem);
  CHECK(fx.file("key.pem") == fx.v1.private_key_pem);
  // A rollback retried does the same again.
  REQUIRE(fx.module->restore(fx.target(), nullptr).ok);
  CHECK(fx.file("key.pem") == fx.v1.private_key_pem);
}

TEST_CASE(
    "file module: a rollback puts back what the delivery replaced and keeps, saying so, what it "
    "created") {
  FileFixture fx;
  REQUIRE_MESSAGE(fx.nginx.available(), fx.nginx.reason());
  auto t = fx.target();
  t.settings["chain_path"] = (fx.nginx.site() / "chain.pem").string();  // not there before
  std::vector<std::string> steps;
  t.step = [&](const std::string& s) { steps.push_back(s); };
  REQUIRE(fx.module->deliver(t, fx.version(fx.v2)).ok);
  CHECK(fx.file("chain.pem") == fx.v2.chain_pem);
  steps.clear();
  const auto restored = fx.module->restore(t, nullptr);
  REQUIRE_MESSAGE(restored.ok, restored.error_code << ": " << restored.error);
  CHECK(fx.file("fullchain.pem") == fx.v1.certificate_pem + fx.v1.chain_pem);
  CHECK(fx.file("key.pem") == fx.v1.private_key_pem);
  CHECK(fx.file("chain.pem") == fx.v2.chain_pem);  // never deleted
  const std::string keptStep =
      "kept " + t.settings["chain_path"] + ": it did not exist before the delivery (never deleted)";
  CHECK(std::find(steps.begin(), steps.end(), keptStep) != steps.end());
  CHECK(testing::servedLeafSoon(fx.nginx.port(), fx.v1.certificate_pem) == fx.v1.certificate_pem);
}

TEST_CASE(
    "file module: paths outside the allowed directories, symbolic links and commands not allowed "
    "are refused") {
  FileFixture fx;
  REQUIRE_MESSAGE(fx.nginx.available(), fx.nginx.reason());
  const auto before = fx.file("fullchain.pem");
  auto outside = fx.target();
  outside.settings["key_path"] = (fx.nginx.dir() / "key.pem").string();  // one level up
  CHECK(fx.module->deliver(outside, fx.version(fx.v2)).error_code == "WRITE_FAILED");
  CHECK_FALSE(std::filesystem::exists(fx.nginx.dir() / "key.pem"));

  // A link inside the allowed directory that points out of it is never written through.
  std::filesystem::create_symlink(fx.nginx.dir() / "elsewhere.pem", fx.nginx.site() / "link.pem");
  auto linked = fx.target();
  linked.settings["fullchain_path"] = (fx.nginx.site() / "link.pem").string();
  CHECK(fx.module->deliver(linked, fx.version(fx.v2)).error_code == "WRITE_FAILED");
  CHECK_FALSE(std::filesystem::exists(fx.nginx.dir() / "elsewhere.pem"));

  auto command = fx.target();
  command.settings["reload_command"] = "/bin/true";  // executable, but not allowed
  CHECK(fx.module->deliver(command, fx.version(fx.v2)).error_code == "RELOAD_FAILED");
  CHECK(fx.file("fullchain.pem") == before);  // put back
  CHECK(fx.module->plan(command, fx.version(fx.v2)).error_code == "RELOAD_FAILED");
}

TEST_CASE("file module: a dry-run writes nothing and a failed reload leaves the old files") {
  FileFixture fx;
  REQUIRE_MESSAGE(fx.nginx.available(), fx.nginx.reason());
  const auto listing = [&] {
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(fx.nginx.site()))
      names.push_back(e.path().filename().string() + ":" + testing::readLog(e.path()));
    std::sort(names.begin(), names.end());
    return names;
  };
  const auto before = listing();
  const auto plan = fx.module->plan(fx.target(), fx.version(fx.v2));
  REQUIRE_MESSAGE(plan.ok, plan.error);
  CHECK(plan.changes.size() == 3);
  CHECK(listing() == before);

  std::ofstream(fx.reload) << "#!/bin/sh\necho 'nginx: [emerg] broken' >&2\nexit 1\n";
  const auto failed = fx.module->deliver(fx.target(), fx.version(fx.v2));
  CHECK(failed.error_code == "RELOAD_FAILED");
  CHECK(failed.error.find("[emerg] broken") != std::string::npos);
  CHECK(fx.file("fullchain.pem") == fx.v1.certificate_pem + fx.v1.chain_pem);
  CHECK(fx.file("key.pem") == fx.v1.private_key_pem);
}

TEST_CASE("file module: a replaced private key is set aside as 0600 whatever its mode was") {
  FileFixture fx;
  REQUIRE_MESSAGE(fx.nginx.available(), fx.nginx.reason());
  REQUIRE(::chmod((fx.nginx.site() / "key.pem").c_str(), 0644) == 0);
  const auto delivered = fx.module->deliver(fx.target(), fx.version(fx.v2));
  REQUIRE_MESSAGE(delivered.ok, delivered.error_code << ": " << delivered.error);
  struct stat st {};
  REQUIRE(::stat((fx.nginx.site() / "key.pem.certsteward-previous").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  CHECK(fx.file("key.pem.certsteward-previous") == fx.v1.private_key_pem);
  REQUIRE(::stat((fx.nginx.site() / "key.pem").c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0600);
  // The certificate's copy keeps its mode (a hard link: the same file).
  struct stat live {};
  REQUIRE(::stat((fx.nginx.site() / "fullchain.pem.certsteward-previous").c_str(), &st) == 0);
  REQUIRE(::stat((fx.nginx.site() / "fullchain.pem").c_str(), &live) == 0);
  CHECK((st.st_mode & 0777) == 0644);
}

TEST_CASE(
    "file module: a directory swapped for a symbolic link while executes run never steers a file "
    "out of the allowed tree") {
  namespace fs = std::filesystem;
  const fs::path base =
      fs::temp_directory_path() / ("certsteward-race-" + std::to_string(::getpid()));
  const fs::path root = base / "allowed";
  const fs::path outside = base / "outside";
  fs::remove_all(base);
  fs::create_directories(root / "sub");
  fs::create_directories(outside);
  adapters::distribution::FileModule module({{}, {root.string()}});
  ports::TargetAccess t;
  t.name = "race";
  t.settings = {{"fullchain_path", (root / "sub" / "fullchain.pem").string()},
                {"key_path", (root / "sub" / "key.pem").string()}};
  t.timeout = 5s;
  const testing::TestMaterial material[2] = {testing::makeTestMaterial("localhost"),
                                             testing::makeTestMaterial("localhost")};
  const auto version = [&](int i) {
    const auto& m = material[i % 2];
    return domain::CertificateVersion{"c",         "localhost",      {"localhost"},
                                      "2",         std::nullopt,     m.certificate_pem,
                                      m.chain_pem, m.private_key_pem};
  };

  // A local user who can write below the allowed directory swaps its subdirectory for a link
  // to a directory outside, and back, as fast as it can (bounded: stops with the executes).
  std::atomic<bool> stop{false};
  std::atomic<long> swaps{0};
  std::thread swapper([&] {
    const std::string sub = (root / "sub").string();
    const std::string real = (root / "sub.real").string();
    // Each state held for 0 to 400 µs: about as long as an execute takes between its steps.
    unsigned seed = 12345;
    const auto pause = [&] {
      seed = seed * 1103515245u + 12345u;
      std::this_thread::sleep_for(std::chrono::microseconds((seed >> 16) % 400));
    };
    for (long i = 0; i < 10'000'000 && !stop.load(); ++i) {
      if (::rename(sub.c_str(), real.c_str()) != 0) continue;
      (void)::symlink(outside.c_str(), sub.c_str());
      pause();
      (void)::unlink(sub.c_str());
      (void)::rename(real.c_str(), sub.c_str());
      swaps.fetch_add(1);
      pause();
    }
  });
  int succeeded = 0;
  int refused = 0;
  for (int i = 0; i < 60; ++i) {
    const auto outcome = module.deliver(t, version(i));
    if (outcome.ok) {
      ++succeeded;
    } else {
      CHECK(outcome.error_code == "WRITE_FAILED");
      ++refused;
    }
    // Nothing, ever, outside the allowed tree: no key, no temporary, no set-aside copy.
    CHECK_MESSAGE(fs::is_empty(outside), "execute " << i << " wrote outside the allowed tree");
  }
  stop = true;
  swapper.join();
  MESSAGE(swaps.load() << " swaps; " << succeeded << " executes succeeded, " << refused
                       << " were refused");
  CHECK(swaps.load() > 0);
  CHECK(fs::is_empty(outside));
  // Without the swapping, the same target is written as usual.
  const auto calm = module.deliver(t, version(0));
  REQUIRE_MESSAGE(calm.ok, calm.error_code << ": " << calm.error);
  CHECK(testing::readLog(root / "sub" / "key.pem") == material[0].private_key_pem);
  fs::remove_all(base);
}

TEST_CASE(
    "file module: a link on the way to an allowed path is refused before anything is written") {
  namespace fs = std::filesystem;
  const fs::path base =
      fs::temp_directory_path() / ("certsteward-walk-" + std::to_string(::getpid()));
  fs::remove_all(base);
  fs::create_directories(base / "allowed");
  fs::create_directories(base / "outside");
  fs::create_directory_symlink(base / "outside", base / "allowed" / "sub");
  adapters::distribution::FileModule module({{}, {(base / "allowed").string()}});
  ports::TargetAccess t;
  t.name = "walk";
  t.settings = {{"key_path", (base / "allowed" / "sub" / "key.pem").string()}};
  t.timeout = 5s;
  const auto m = testing::makeTestMaterial("localhost");
  const domain::CertificateVersion v{"c",         "localhost",      {"localhost"},
                                     "2",         std::nullopt,     m.certificate_pem,
                                     m.chain_pem, m.private_key_pem};
  CHECK(module.plan(t, v).error_code == "WRITE_FAILED");
  const auto outcome = module.deliver(t, v);
  CHECK(outcome.error_code == "WRITE_FAILED");
  CHECK(outcome.error.find("symbolic link") != std::string::npos);
  CHECK(fs::is_empty(base / "outside"));
  auto dotted = t;
  dotted.settings["key_path"] = (base / "allowed" / ".." / "outside" / "key.pem").string();
  CHECK(module.deliver(dotted, v).error_code == "WRITE_FAILED");
  CHECK(fs::is_empty(base / "outside"));
  fs::remove_all(base);
}

TEST_CASE("file module: HTTP-01 files go below the webroot and are removed, never through a link") {
  namespace fs = std::filesystem;
  const fs::path dir = testing::freshServerDir("webroot");
  const fs::path allowed = dir / "allowed";
  fs::create_directories(allowed / "www");
  fs::create_directories(dir / "elsewhere");
  adapters::distribution::FileModule module(
      adapters::distribution::FileModuleSettings{{}, {allowed.string()}});
  const auto target = [](const std::string& webroot) {
    ports::TargetAccess t;
    t.name = "local";
    if (!webroot.empty()) t.settings = {{"webroot", webroot}};
    t.timeout = 5s;
    return t;
  };
  const std::string token = "LoqXcYV8q5ONbJQxbmR7SCTNo3tiAXDfowyjxAjEuX0";

  // The packaged unit's umask (0077) must not keep the web server out of the directories.
  const mode_t umaskBefore = ::umask(077);
  auto put = module.putChallengeFile(target((allowed / "www").string()), token, token + ".thumb");
  ::umask(umaskBefore);
  REQUIRE_MESSAGE(put.ok, put.error);
  const fs::path file = allowed / "www/.well-known/acme-challenge" / token;
  CHECK(testing::readLog(file) == token + ".thumb");
  struct stat st {};
  REQUIRE(::stat(file.c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0644);  // the web server reads it
  REQUIRE(::stat((allowed / "www/.well-known").c_str(), &st) == 0);
  CHECK((st.st_mode & 07777) == 0755);
  CHECK(module.removeChallengeFile(target((allowed / "www").string()), token).ok);
  CHECK_FALSE(fs::exists(file));
  CHECK(module.removeChallengeFile(target((allowed / "www").string()), token).ok);  // absent

  // Refused, nothing written: outside the allowed directories, a missing webroot, none set, and
  // a link planted where the directory goes.
  fs::create_directories(allowed / "linked");
  fs::create_directory_symlink(dir / "elsewhere", allowed / "linked/.well-known");
  for (const auto& webroot : {(dir / "elsewhere").string(), (allowed / "missing").string(),
                              std::string(), (allowed / "linked").string()}) {
    CAPTURE(webroot);
    auto refused = module.putChallengeFile(target(webroot), token, "x");
    CHECK_FALSE(refused.ok);
    CHECK(refused.error_code == domain::target_error::write_failed);
  }
  CHECK(fs::is_empty(dir / "elsewhere"));
  CHECK_FALSE(fs::exists(allowed / "missing"));
  // A token that is not base64url never becomes a path.
  for (const char* hostile : {"../../escape", "a/b", "", "x.y"}) {
    CAPTURE(hostile);
    CHECK(module.putChallengeFile(target((allowed / "www").string()), hostile, "x").error_code ==
          domain::target_error::write_failed);
    CHECK_FALSE(module.removeChallengeFile(target((allowed / "www").string()), hostile).ok);
  }
  CHECK_FALSE(fs::exists(allowed / "escape"));
  // A webroot that is an allowed directory itself.
  adapters::distribution::FileModule rooted(
      adapters::distribution::FileModuleSettings{{}, {(allowed / "www").string()}});
  CHECK(rooted.putChallengeFile(target((allowed / "www").string()), token, "t").ok);
  CHECK(testing::readLog(file) == "t");
  CHECK(rooted.removeChallengeFile(target((allowed / "www").string()), token).ok);
  fs::remove_all(dir);
}
