// The haproxy and webhook modules against real servers started here on 127.0.0.1: Debian's
// HAProxy hot-updated through its runtime API (the same process serves the new certificate, a
// connection opened before the update keeps working), and an HTTPS receiver that checks the
// signature and the document (and answers non-2xx on request).
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/hmac.h>

#include <boost/json.hpp>

#include <chrono>
#include <mutex>

#include <certsteward/adapters/distribution/haproxy_module.hpp>
#include <certsteward/adapters/distribution/webhook_module.hpp>
#include <certsteward/domain/encoding.hpp>
#include "support/free_port.hpp"
#include "support/haproxy_server.hpp"
#include "support/https_receiver.hpp"
#include "support/loopback_listener.hpp"
#include "support/outbound.hpp"
#include "support/test_certificates.hpp"
#include "support/tls_probe.hpp"

using namespace certsteward;
using namespace std::chrono_literals;
namespace json = boost::json;

namespace {

domain::CertificateVersion version(const testing::TestMaterial& m, const std::string& serial) {
  return {"cert-1",
          "localhost",
          {"localhost", "www.localhost"},
          serial,
          domain::fromUnixSeconds(1900000000),
          m.certificate_pem,
          m.chain_pem,
          m.private_key_pem};
}

// A TLS connection with one HTTP request answered now, and another sent later on it.
class OpenConnection {
 public:
  explicit OpenConnection(int port) {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    timeval tv{5, 0};
    ::setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    REQUIRE(::connect(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0);
    ctx_ = SSL_CTX_new(TLS_client_method());
    ssl_ = SSL_new(ctx_);
    SSL_set_fd(ssl_, fd_);
    REQUIRE(SSL_connect(ssl_) == 1);
  }
  ~OpenConnection() {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
    ::close(fd_);
  }
  // The status line of a keep-alive GET on this connection.
  std::string get() {
    const std::string request = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
    if (SSL_write(ssl_, request.data(), static_cast<int>(request.size())) <= 0)
      return "write failed";
    char buf[512];
    const int n = SSL_read(ssl_, buf, sizeof buf);
    if (n <= 0) return "read failed";
    const std::string answer(buf, static_cast<std::size_t>(n));
    return answer.substr(0, answer.find("\r\n"));
  }

 private:
  int fd_ = -1;
  SSL_CTX* ctx_ = nullptr;
  SSL* ssl_ = nullptr;
};

ports::TargetAccess haproxyTarget(const testing::HaproxyServer& h) {
  ports::TargetAccess t;
  t.name = "lb-1";
  t.settings = {{"runtime_address", h.runtimeAddress()},
                {"cert_name", h.certName()},
                {"verify_address", h.tlsAddress()}};
  t.timeout = 10s;
  return t;
}

}  // namespace

TEST_CASE(
    "haproxy module: a hot update changes the served certificate in the same process, without "
    "dropping a connection") {
  const auto v1 = testing::makeTestMaterial("localhost", {}, 11);
  const auto v2 = testing::makeTestMaterial("localhost", {}, 12);
  testing::HaproxyServer haproxy(v1);
  REQUIRE_MESSAGE(haproxy.available(), haproxy.reason());
  adapters::distribution::HaproxyModule module;
  REQUIRE(testing::servedLeaf(haproxy.tlsPort()).pem == v1.certificate_pem);
  OpenConnection before(haproxy.tlsPort());
  CHECK(before.get() == "HTTP/1.1 200 OK");

  const auto plan = module.plan(haproxyTarget(haproxy), version(v2, "0c"));
  REQUIRE_MESSAGE(plan.ok, plan.error);
  REQUIRE(plan.changes.size() == 1);
  CHECK(plan.changes[0].action == "replace");
  CHECK(module.plan(haproxyTarget(haproxy), version(v1, "0B")).changes.at(0).action == "unchanged");

  const auto delivered = module.deliver(haproxyTarget(haproxy), version(v2, "0c"));
  REQUIRE_MESSAGE(delivered.ok, delivered.error_code << ": " << delivered.error);
  CHECK(testing::servedLeaf(haproxy.tlsPort()).pem == v2.certificate_pem);
  CHECK(::kill(haproxy.pid(), 0) == 0);  // the same process, never restarted
  CHECK(before.get() == "HTTP/1.1 200 OK");

  // Rollback commits the previous version the same way; without one there is nothing to do.
  const auto v1Version = version(v1, "0b");
  REQUIRE(module.restore(haproxyTarget(haproxy), &v1Version).ok);
  CHECK(testing::servedLeaf(haproxy.tlsPort()).pem == v1.certificate_pem);
  CHECK(module.restore(haproxyTarget(haproxy), nullptr).error_code == "NOTHING_TO_RESTORE");
  CHECK(module.check(haproxyTarget(haproxy)).ok);

  auto unknown = haproxyTarget(haproxy);
  unknown.settings["cert_name"] = "/etc/haproxy/not-loaded.pem";
  CHECK(module.plan(unknown, version(v2, "0c")).error_code == "WRITE_FAILED");
  CHECK(module.deliver(unknown, version(v2, "0c")).error_code == "WRITE_FAILED");
  auto closed = haproxyTarget(haproxy);
  closed.settings["runtime_address"] = "127.0.0.1:" + std::to_string(testing::freeLoopbackPort());
  CHECK(module.check(closed).error_code == "CONNECT_FAILED");
  CHECK(testing::servedLeaf(haproxy.tlsPort()).pem == v1.certificate_pem);
}

namespace {

// A loopback service that is not HAProxy but answers every command as if it had worked
// ("Transaction created ... Success!"), recording what it was sent (each read waits at most 1 s).
class Impostor {
 public:
  int port() const { return listener_.port(); }
  std::string received() const {
    std::lock_guard lock(mu_);
    return received_;
  }

 private:
  void serve(int client) {
    timeval tv{1, 0};
    ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string got;
    char buf[4096];
    while (got.find('\n') == std::string::npos || got.find("<<") != std::string::npos) {
      const auto n = ::recv(client, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
      if (got.find("<<") != std::string::npos && got.ends_with("\n\n")) break;
    }
    {
      std::lock_guard lock(mu_);
      received_ += got;
    }
    const std::string answer = "Transaction created for certificate x!\nSuccess!\n";
    (void)::send(client, answer.data(), answer.size(), MSG_NOSIGNAL);
    ::close(client);
  }

  mutable std::mutex mu_;
  std::string received_;
  testing::LoopbackListener listener_{[this](int client) { serve(client); }};
};

}  // namespace

TEST_CASE("haproxy module: a runtime_address that is not HAProxy is never sent the key") {
  const auto v = testing::makeTestMaterial("localhost", {}, 13);
  Impostor impostor;
  REQUIRE(impostor.port() != 0);
  adapters::distribution::HaproxyModule module;
  ports::TargetAccess t;
  t.name = "lb";
  t.settings = {{"runtime_address", "127.0.0.1:" + std::to_string(impostor.port())},
                {"cert_name", "/etc/haproxy/site.pem"}};
  t.timeout = 3s;
  const auto delivered = module.deliver(t, version(v, "0d"));
  CHECK(delivered.error_code == "CONNECT_FAILED");
  CHECK(delivered.error.find("not HAProxy") != std::string::npos);
  CHECK(module.check(t).error_code == "CONNECT_FAILED");
  const auto received = impostor.received();
  CHECK(received.find("show version") != std::string::npos);
  CHECK(received.find("PRIVATE KEY") == std::string::npos);
  CHECK(received.find("set ssl cert") == std::string::npos);
}

namespace {

ports::TargetAccess webhookTarget(const testing::HttpsReceiver& r) {
  ports::TargetAccess t;
  t.name = "hook";
  t.settings = {{"url", r.url()}, {"ca_pem", r.caPem()}};
  t.secret = "webhook signing secret";
  t.timeout = 10s;
  return t;
}

}  // namespace

TEST_CASE("webhook module: a signed document, the key only when asked, non-2xx a failed target") {
  testing::HttpsReceiver receiver;
  REQUIRE_MESSAGE(receiver.available(), receiver.reason());
  const auto v1 = testing::makeTestMaterial("localhost", {}, 21);
  const auto v2 = testing::makeTestMaterial("localhost", {}, 22);
  adapters::distribution::WebhookModule module{testing::loopbackOutbound()};

  const auto plan = module.plan(webhookTarget(receiver), version(v2, "16"));
  REQUIRE_MESSAGE(plan.ok, plan.error);
  CHECK(plan.changes.at(0).action == "send");
  CHECK(receiver.requests().empty());  // a dry-run posts nothing

  const auto delivered = module.deliver(webhookTarget(receiver), version(v2, "16"));
  REQUIRE_MESSAGE(delivered.ok, delivered.error_code << ": " << delivered.error);
  auto requests = receiver.requests();
  REQUIRE(requests.size() == 1);
  const auto& posted = requests[0];
  const std::string timestamp = posted.header("X-CertSteward-Timestamp");
  CHECK(posted.header("X-CertSteward-Signature") ==
        "sha256=" + testing::HttpsReceiver::hmacSha256Hex("webhook signing secret",
                                                          timestamp + "." + posted.body));
  CHECK(posted.header("X-CertSteward-Delivery").size() == 32);
  const auto doc = json::parse(posted.body).as_object();
  CHECK(doc.at("action").as_string() == "deploy");
  CHECK(doc.at("certificate_pem").as_string() == v2.certificate_pem);
  CHECK(doc.at("chain_pem").as_string() == v2.chain_pem);
  CHECK(doc.at("certificate").as_object().at("serial_number").as_string() == "16");
  CHECK_FALSE(doc.contains("private_key_pem"));

  auto withKey = webhookTarget(receiver);
  withKey.settings["include_private_key"] = "true";
  REQUIRE(module.deliver(withKey, version(v2, "16")).ok);
  CHECK(
      json::parse(receiver.requests().back().body).as_object().at("private_key_pem").as_string() ==
      v2.private_key_pem);

  const auto v1Version = version(v1, "15");
  REQUIRE(module.restore(webhookTarget(receiver), &v1Version).ok);
  const auto rollback = json::parse(receiver.requests().back().body).as_object();
  CHECK(rollback.at("action").as_string() == "rollback");
  CHECK(rollback.at("certificate_pem").as_string() == v1.certificate_pem);

  receiver.answerWith(500);
  const auto rejected = module.deliver(webhookTarget(receiver), version(v2, "16"));
  CHECK(rejected.error_code == "REJECTED");
  CHECK(rejected.error.find("500") != std::string::npos);

  // The receiver's certificate is checked: without its CA the handshake fails.
  auto untrusted = webhookTarget(receiver);
  untrusted.settings.erase("ca_pem");
  const auto refused = module.deliver(untrusted, version(v2, "16"));
  CHECK(refused.error_code == "CONNECT_FAILED");
  CHECK(refused.error.find("webhook signing secret") == std::string::npos);
  auto closed = webhookTarget(receiver);
  closed.settings["url"] = "https://127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) + "/";
  CHECK(module.check(closed).error_code == "CONNECT_FAILED");
}
