// What the TLS listener serves and when it changes (app/tls_reloader): files replaced on disk,
// a pair that does not match yet, the managed certificate taking over once issued and staying
// when it is deleted, and the refusals at start. Over the memory store and temporary files.
#include <doctest/doctest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/app/tls_reloader.hpp>
#include "support/test_certificates.hpp"

using namespace certsteward;
using certsteward::testing::makeTestMaterial;

namespace {

struct Files {
  Files() {
    dir = std::filesystem::temp_directory_path() /
          ("certsteward-tls-reloader-" + std::to_string(::getpid()) + "-" +
           std::to_string(counter++));
    std::filesystem::create_directories(dir);
  }
  ~Files() {
    std::error_code ignored;
    std::filesystem::remove_all(dir, ignored);
  }
  void write(const std::string& name, const std::string& text) const {
    std::ofstream(dir / (name + ".new")) << text;
    std::filesystem::rename(dir / (name + ".new"), dir / name);  // as `mv` replaces it
  }
  std::string path(const std::string& name) const { return (dir / name).string(); }
  static inline int counter = 0;
  std::filesystem::path dir;
};

struct World {
  adapters::memory::MemoryStore store;
  adapters::crypto::AesGcmSecretBox secrets{"tls reloader test secrets key 32+ chars"};
  Files files;
  app::Config config;

  domain::Result<std::unique_ptr<app::TlsReloader>> reloader() {
    return app::TlsReloader::create(config, store.projects(), store.certificates(), secrets);
  }
  void useFiles() {
    config.tls_certificate_file = files.path("cert.pem");
    config.tls_key_file = files.path("key.pem");
  }
  // Certificate `id` in a project, issued with `m` (or not issued when `m` is null).
  void managed(const std::string& id, const testing::TestMaterial* m) {
    domain::Project p;
    p.id = "6b07fbb31dac3699ff3b0001";
    p.name = "site";
    if (!store.projects().get(p.id)) REQUIRE(store.projects().create(p).ok());
    domain::Certificate c;
    c.id = id;
    c.project_id = p.id;
    c.common_name = "localhost";
    c.sans = {"localhost"};
    if (auto existing = store.certificates().get(p.id, id); existing) {
      c = *existing;
    } else {
      REQUIRE(store.certificates().create(c).ok());
      c = *store.certificates().get(p.id, id);
    }
    if (m != nullptr) {
      c.status = domain::CertificateStatus::active;
      c.certificate_pem = m->certificate_pem;
      c.chain_pem = m->chain_pem;
      c.private_key_sealed = *secrets.seal(m->private_key_pem);
    }
    REQUIRE(store.certificates().update(c).ok());
  }
};

constexpr const char* kId = "6b07fbb31dac3699ff3b5a2c";

// The store's serial of a certificate made with makeTestMaterial(..., serial): its hex.
std::string hexSerial(long serial) {
  char text[32];
  std::snprintf(text, sizeof text, "%lx", serial);
  return text;
}

void setSerial(World& w, long serial) {
  auto c = w.store.certificates().get("6b07fbb31dac3699ff3b0001", kId);
  REQUIRE(c.ok());
  c->serial_number = hexSerial(serial);
  REQUIRE(w.store.certificates().update(*c).ok());
}

}  // namespace

TEST_CASE("tls reloader: files replaced on disk are served, a pair that does not match waits") {
  World w;
  const auto first = makeTestMaterial("localhost", {}, 31);
  const auto second = makeTestMaterial("localhost", {}, 32);
  w.files.write("cert.pem", first.certificate_pem + first.chain_pem);
  w.files.write("key.pem", first.private_key_pem);
  w.useFiles();
  auto r = w.reloader();
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  auto& reloader = **r;
  CHECK(reloader.context()->servedSerial() == "1F");
  reloader.check();  // nothing changed: nothing happens
  CHECK(reloader.context()->servedSerial() == "1F");

  // The key replaced first: the pair does not match, the first certificate stays.
  w.files.write("key.pem", second.private_key_pem);
  reloader.check();
  CHECK(reloader.context()->servedSerial() == "1F");
  // Then the certificate: served from the next look.
  w.files.write("cert.pem", second.certificate_pem + second.chain_pem);
  reloader.check();
  CHECK(reloader.context()->servedSerial() == "20");
  // A file that goes missing changes nothing.
  std::filesystem::remove(w.files.path("cert.pem"));
  reloader.check();
  CHECK(reloader.context()->servedSerial() == "20");
}

TEST_CASE("tls reloader: the managed certificate takes over once issued and stays once served") {
  World w;
  const auto bootstrap = makeTestMaterial("localhost", {}, 41);
  const auto managed = makeTestMaterial("localhost", {}, 42);
  const auto renewed = makeTestMaterial("localhost", {}, 43);
  w.files.write("cert.pem", bootstrap.certificate_pem + bootstrap.chain_pem);
  w.files.write("key.pem", bootstrap.private_key_pem);
  w.useFiles();
  w.config.tls_certificate_id = kId;
  w.managed(kId, nullptr);  // created, not issued yet

  auto r = w.reloader();
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  auto& reloader = **r;
  CHECK(reloader.context()->servedSerial() == "29");  // the files meanwhile

  w.managed(kId, &managed);
  setSerial(w, 42);
  reloader.check();
  CHECK(reloader.context()->servedSerial() == "2A");
  reloader.check();
  CHECK(reloader.context()->servedSerial() == "2A");

  w.managed(kId, &renewed);
  setSerial(w, 43);
  reloader.check();
  CHECK(reloader.context()->servedSerial() == "2B");

  // Deleted from the store: the managed certificate served stays (not the bootstrap files).
  REQUIRE(w.store.certificates().remove("6b07fbb31dac3699ff3b0001", kId).ok());
  reloader.check();
  CHECK(reloader.context()->servedSerial() == "2B");
  // Looked for again only at every tenth look (each one walks every project): back in the
  // store with a new serial, it is served at the tenth.
  const auto again = makeTestMaterial("localhost", {}, 44);
  w.managed(kId, &again);
  setSerial(w, 44);
  for (int look = 1; look <= 9; ++look) {
    reloader.check();
    CHECK(reloader.context()->servedSerial() == "2B");
  }
  reloader.check();
  CHECK(reloader.context()->servedSerial() == "2C");
}

TEST_CASE("tls reloader: refused at start when there is nothing right to serve") {
  World w;
  const auto good = makeTestMaterial("localhost", {}, 51);
  const auto other = makeTestMaterial("localhost", {}, 52);
  w.config.tls_certificate_id = kId;
  // Not found, no files.
  auto r = w.reloader();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == domain::ErrorCode::not_found);
  // Not issued, no files.
  w.managed(kId, nullptr);
  r = w.reloader();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().code == domain::ErrorCode::failed_precondition);
  // Issued, with files that do not match: refused now, not when they are needed.
  w.managed(kId, &good);
  setSerial(w, 51);
  w.files.write("cert.pem", good.certificate_pem);
  w.files.write("key.pem", other.private_key_pem);
  w.useFiles();
  r = w.reloader();
  REQUIRE_FALSE(r.ok());
  CHECK(r.error().message.find("does not belong") != std::string::npos);
  CHECK(r.error().message.find("PRIVATE KEY") == std::string::npos);
  // Matching files: the managed certificate is served.
  w.files.write("key.pem", good.private_key_pem);
  r = w.reloader();
  REQUIRE_MESSAGE(r.ok(), r.error().message);
  CHECK((*r)->context()->servedSerial() == "33");
}
