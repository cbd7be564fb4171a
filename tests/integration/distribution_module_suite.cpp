// The DistributionModule contract suite (testing/contract) against every module of this build,
// each with the real server it talks to started here on 127.0.0.1, and against the shared fake.
#include <boost/json.hpp>

#include <chrono>
#include <filesystem>
#include <memory>

#include <certsteward/adapters/distribution/file_module.hpp>
#include <certsteward/adapters/distribution/haproxy_module.hpp>
#include <certsteward/adapters/distribution/ssh_module.hpp>
#include <certsteward/adapters/distribution/webhook_module.hpp>
#include <certsteward/testing/fake_distribution.hpp>
#include "support/free_port.hpp"
#include "support/haproxy_server.hpp"
#include "support/https_receiver.hpp"
#include "support/nginx_server.hpp"
#include "support/outbound.hpp"
#include "support/sshd_server.hpp"
#include "support/test_certificates.hpp"
#include "support/tls_probe.hpp"

namespace {

using namespace certsteward;
using namespace std::chrono_literals;

struct Versions {
  testing::TestMaterial a = testing::makeTestMaterial("localhost", {}, 31);
  testing::TestMaterial b = testing::makeTestMaterial("localhost", {}, 32);
  static domain::CertificateVersion of(const testing::TestMaterial& m, const char* serial) {
    return {"c",          "localhost",       {"localhost"}, serial,
            std::nullopt, m.certificate_pem, m.chain_pem,   m.private_key_pem};
  }
  domain::CertificateVersion first() { return of(a, "1f"); }
  domain::CertificateVersion second() { return of(b, "20"); }
};

ports::TargetAccess access(std::string name, domain::Settings settings) {
  ports::TargetAccess t;
  t.name = std::move(name);
  t.settings = std::move(settings);
  t.timeout = 10s;
  return t;
}

struct FakeHarness : Versions {
  testing::FakeDistributionModule fake;
  FakeHarness() {
    fake.failTarget("down", "CONNECT_FAILED");
    (void)fake.deliver(target(), first());  // what the target held before the suite
  }
  bool available() { return true; }
  std::string reason() { return {}; }
  ports::DistributionModule& module() { return fake; }
  ports::TargetAccess target() { return access("t", {}); }
  ports::TargetAccess pristine() { return access("never", {}); }
  ports::TargetAccess unreachable() { return access("down", {}); }
  std::string unreachableCode() { return "CONNECT_FAILED"; }
  bool serves(const domain::CertificateVersion& v) { return fake.served("t") == v.serial_number; }
};

// Files a client of the directory sees: the full chain's bytes.
struct FileHarness : Versions {
  testing::NginxServer nginx{a};
  std::unique_ptr<adapters::distribution::FileModule> file;
  FileHarness() {
    if (!nginx.available()) return;
    std::filesystem::create_directories(nginx.dir() / "pristine");
    file = std::make_unique<adapters::distribution::FileModule>(
        adapters::distribution::FileModuleSettings{
            {}, {nginx.site().string(), (nginx.dir() / "pristine").string()}});
  }
  // scripts/setup installs the servers: here a missing one fails the suite.
  bool available() {
    REQUIRE_MESSAGE(nginx.available(), nginx.reason());
    return true;
  }
  std::string reason() { return nginx.reason(); }
  ports::DistributionModule& module() { return *file; }
  ports::TargetAccess in(const std::filesystem::path& dir) {
    return access("local", {{"fullchain_path", (dir / "fullchain.pem").string()},
                            {"key_path", (dir / "key.pem").string()}});
  }
  ports::TargetAccess target() { return in(nginx.site()); }
  ports::TargetAccess pristine() { return in(nginx.dir() / "pristine"); }
  ports::TargetAccess unreachable() { return in(nginx.dir()); }  // not an allowed directory
  std::string unreachableCode() { return "WRITE_FAILED"; }
  bool serves(const domain::CertificateVersion& v) {
    return testing::readLog(nginx.site() / "fullchain.pem") == v.fullchainPem();
  }
};

struct SshHarness : Versions {
  testing::SshdServer sshd;
  testing::NginxServer nginx{a};
  adapters::distribution::SshModule ssh;
  SshHarness() {
    if (nginx.available()) std::filesystem::create_directories(nginx.dir() / "pristine");
  }
  bool available() {
    REQUIRE_MESSAGE(sshd.available(), sshd.reason());
    REQUIRE_MESSAGE(nginx.available(), nginx.reason());
    return true;
  }
  std::string reason() { return sshd.available() ? nginx.reason() : sshd.reason(); }
  ports::DistributionModule& module() { return ssh; }
  ports::TargetAccess in(const std::filesystem::path& dir, int port) {
    auto t = access("host", {{"host", "127.0.0.1"},
                             {"port", std::to_string(port)},
                             {"host_key_sha256", sshd.hostKeyFingerprint()},
                             {"fullchain_path", (dir / "fullchain.pem").string()},
                             {"key_path", (dir / "key.pem").string()}});
    domain::Credential c;
    c.kind = "ssh_key";
    c.username = testing::SshdServer::user();
    t.credential = c;
    t.secret = sshd.clientKey();
    return t;
  }
  ports::TargetAccess target() { return in(nginx.site(), sshd.port()); }
  ports::TargetAccess pristine() { return in(nginx.dir() / "pristine", sshd.port()); }
  ports::TargetAccess unreachable() { return in(nginx.site(), testing::freeLoopbackPort()); }
  std::string unreachableCode() { return "CONNECT_FAILED"; }
  bool serves(const domain::CertificateVersion& v) {
    return testing::readLog(nginx.site() / "fullchain.pem") == v.fullchainPem();
  }
};

struct HaproxyHarness : Versions {
  testing::HaproxyServer haproxy{a};
  adapters::distribution::HaproxyModule lb;
  bool available() {
    REQUIRE_MESSAGE(haproxy.available(), haproxy.reason());
    return true;
  }
  std::string reason() { return haproxy.reason(); }
  ports::DistributionModule& module() { return lb; }
  ports::TargetAccess at(const std::string& runtime) {
    return access("lb", {{"runtime_address", runtime}, {"cert_name", haproxy.certName()}});
  }
  ports::TargetAccess target() { return at(haproxy.runtimeAddress()); }
  ports::TargetAccess pristine() { return target(); }
  ports::TargetAccess unreachable() {
    return at("127.0.0.1:" + std::to_string(testing::freeLoopbackPort()));
  }
  std::string unreachableCode() { return "CONNECT_FAILED"; }
  bool serves(const domain::CertificateVersion& v) {
    return testing::servedLeaf(haproxy.tlsPort()).pem == v.certificate_pem;
  }
};

struct WebhookHarness : Versions {
  testing::HttpsReceiver receiver;
  adapters::distribution::WebhookModule hook{testing::loopbackOutbound()};
  bool available() {
    REQUIRE_MESSAGE(receiver.available(), receiver.reason());
    return true;
  }
  std::string reason() { return receiver.reason(); }
  ports::DistributionModule& module() { return hook; }
  ports::TargetAccess at(const std::string& url) {
    auto t = access("hook", {{"url", url}, {"ca_pem", receiver.caPem()}});
    t.secret = "contract secret";
    return t;
  }
  ports::TargetAccess target() { return at(receiver.url()); }
  ports::TargetAccess pristine() { return target(); }
  ports::TargetAccess unreachable() {
    return at("https://127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/");
  }
  std::string unreachableCode() { return "CONNECT_FAILED"; }
  bool serves(const domain::CertificateVersion& v) {
    const auto received = receiver.requests();
    if (received.empty()) return false;
    const auto doc = boost::json::parse(received.back().body).as_object();
    return doc.at("certificate_pem").as_string() == v.certificate_pem;
  }
};

}  // namespace

#define CERTSTEWARD_DISTRIBUTION_HARNESSES \
  FakeHarness, FileHarness, SshHarness, HaproxyHarness, WebhookHarness
#include <certsteward/testing/contract/distribution_module_contract.hpp>
