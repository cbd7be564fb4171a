// One certificate to 100 SSH targets on a local sshd (distinct paths, reload command `true`),
// through the DistributionRunner and the ssh module as the server runs them — next to what a
// person does today, measured in the same run: per target, one `scp` of the three files and one
// `ssh` of the reload command. Prints both times and their ratio (goal: at most 0.3).
// Usage: certsteward_distribution_bench [targets] [concurrency]
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include <certsteward/adapters/crypto/aes_gcm_secret_box.hpp>
#include <certsteward/adapters/crypto/system_clock.hpp>
#include <certsteward/adapters/distribution/built_in_modules.hpp>
#include <certsteward/adapters/runtime/thread_background.hpp>
#include <certsteward/adapters/store/memory/memory_store.hpp>
#include <certsteward/services/distribution_runner.hpp>
#include <certsteward/testing/fakes.hpp>
#include "support/outbound.hpp"
#include "support/sshd_server.hpp"
#include "support/test_certificates.hpp"

using namespace certsteward;
using Clock = std::chrono::steady_clock;

namespace {

double seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int targets = argc > 1 ? std::stoi(argv[1]) : 100;
  const std::size_t concurrency = argc > 2 ? std::stoul(argv[2]) : 8;
  testing::SshdServer sshd;
  if (!sshd.available()) {
    std::cerr << "skipped: " << sshd.reason() << "\n";
    return 77;
  }
  const auto material = testing::makeTestMaterial("bench.example.test");
  const auto root = testing::freshServerDir("distribution-bench");
  for (const char* side : {"ours", "loop"}) {
    for (int i = 0; i < targets; ++i)
      std::filesystem::create_directories(root / side / ("t" + std::to_string(i)));
  }

  adapters::memory::MemoryStore store;
  adapters::crypto::SystemClock clock;
  adapters::crypto::AesGcmSecretBox box(std::string(32, 'b'));
  adapters::runtime::ThreadBackground background;
  testing::RecordingNotifierFake notifier;
  adapters::distribution::BuiltInModules modules({{}, {}}, testing::loopbackOutbound());
  services::DistributionRunner runner(
      {store.certificates(), store.distributions(), store.moduleConfigs(), store.credentials(),
       modules, box, notifier, clock, background},
      services::DistributionOptions{concurrency, std::chrono::seconds{30}});
  domain::Credential credential;
  credential.id = "c1";
  credential.project_id = "p1";
  credential.kind = "ssh_key";
  credential.username = testing::SshdServer::user();
  credential.secret_sealed = *box.seal(sshd.clientKey());
  (void)store.credentials().create(credential);
  domain::ModuleConfig config;
  config.id = "m1";
  config.project_id = "p1";
  config.name = "fleet";
  config.module = "ssh";
  config.settings = {{"host", "127.0.0.1"},
                     {"port", std::to_string(sshd.port())},
                     {"host_key_sha256", sshd.hostKeyFingerprint()},
                     {"reload_command", "true"}};
  for (int i = 0; i < targets; ++i) {
    const auto dir = (root / "ours" / ("t" + std::to_string(i))).string();
    config.targets.push_back({"t" + std::to_string(i),
                              {{"cert_path", dir + "/cert.pem"},
                               {"fullchain_path", dir + "/fullchain.pem"},
                               {"key_path", dir + "/key.pem"}},
                              "c1"});
  }
  (void)store.moduleConfigs().create(config);
  domain::Certificate cert;
  cert.id = "cert1";
  cert.project_id = "p1";
  cert.common_name = "bench.example.test";
  cert.status = domain::CertificateStatus::active;
  cert.serial_number = "02";
  cert.certificate_pem = material.certificate_pem;
  cert.chain_pem = material.chain_pem;
  cert.private_key_sealed = *box.seal(material.private_key_pem);
  (void)store.certificates().create(cert);
  domain::Distribution d;
  d.id = "d1";
  d.project_id = "p1";
  d.certificate_id = "cert1";
  d.module_config_id = "m1";
  (void)store.distributions().create(d);
  domain::Job job = domain::newJob("j1", "p1", domain::JobType::distribution_execute, clock.now());
  job.certificate_id = "cert1";

  auto started = Clock::now();
  const auto done = runner.execute(job, [](domain::LogLevel, const std::string&) {});
  const double ours = seconds(started);
  if (!done) {
    std::cerr << "distribution failed: " << done.error().message << "\n";
    return 1;
  }

  // The reference: scp of the three files, then ssh of the reload command, target by target.
  const auto files = root / "files";
  std::filesystem::create_directories(files);
  std::ofstream(files / "cert.pem") << material.certificate_pem;
  std::ofstream(files / "fullchain.pem") << material.certificate_pem << material.chain_pem;
  std::ofstream(files / "key.pem") << material.private_key_pem;
  const std::string opts =
      " -q -o BatchMode=yes -o StrictHostKeyChecking=no "
      "-o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -i " +
      sshd.clientKeyPath();
  const std::string user = testing::SshdServer::user() + "@127.0.0.1";
  started = Clock::now();
  for (int i = 0; i < targets; ++i) {
    const auto dir = (root / "loop" / ("t" + std::to_string(i))).string();
    const std::string f = files.string();
    if (testing::runShell("/usr/bin/scp" + opts + " -P " + std::to_string(sshd.port()) + " " + f +
                          "/cert.pem " + f + "/fullchain.pem " + f + "/key.pem " + user + ":" +
                          dir + "/") != 0 ||
        testing::runShell("/usr/bin/ssh" + opts + " -p " + std::to_string(sshd.port()) + " " +
                          user + " true") != 0) {
      std::cerr << "the scp/ssh loop failed at target " << i << "\n";
      return 1;
    }
  }
  const double loop = seconds(started);
  std::filesystem::remove_all(root);
  std::printf("distribution: 1 certificate to %d SSH targets (concurrency %zu)\n", targets,
              concurrency);
  std::printf("  certsteward ssh module: %.2f s (%.1f ms/target)\n", ours, 1000 * ours / targets);
  std::printf("  scp + ssh loop:         %.2f s (%.1f ms/target)\n", loop, 1000 * loop / targets);
  std::printf("  ratio: %.2f (goal <= 0.30)\n", ours / loop);
  return 0;
}
