// The file module on this machine, with nginx started here serving what it writes: deliver and
// restore through an allowed reload command, the operator's limits (directories, commands), no
// writing through symbolic links, and a dry-run that changes nothing.
#include <doctest/doctest.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>

#include "adapters/distribution/file_module.hpp"
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
