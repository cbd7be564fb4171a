// The outbound policy through the real senders (notification channels, the webhook distribution
// module) against receivers started here on loopback: refused addresses in every spelling never
// see a connection, a name is connected to at the address that was checked (a resolver stand-in
// that answers differently the second time), a peer's answer never reaches an error, and a
// closed, silent, non-HTTP or untrusted-TLS port all read the same.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/adapters/distribution/webhook_module.hpp>
#include <certsteward/adapters/notify/channel_senders.hpp>
#include "support/free_port.hpp"
#include "support/http_stub.hpp"
#include "support/https_receiver.hpp"
#include "support/loopback_listener.hpp"
#include "support/outbound.hpp"
#include "support/silent_listener.hpp"

using namespace certsteward;
using namespace std::chrono_literals;
using adapters::common::Outbound;
using domain::ErrorCode;

namespace {

constexpr const char* kLeak = "root:x:0:0 token=tk_internal_777";

// A resolver stand-in: the first lookup of any name answers `first`, every later one `later`.
class ChangingResolver : public adapters::common::HostResolver {
 public:
  ChangingResolver(std::string first, std::string later)
      : first_(std::move(first)), later_(std::move(later)) {}
  domain::Result<std::vector<domain::IpAddress>> resolve(const std::string& host) override {
    std::lock_guard lock(mu_);
    names_.push_back(host);
    return std::vector<domain::IpAddress>{
        *domain::parseIpAddress(names_.size() == 1 ? first_ : later_)};
  }
  std::vector<std::string> names() const {
    std::lock_guard lock(mu_);
    return names_;
  }

 private:
  std::string first_;
  std::string later_;
  mutable std::mutex mu_;
  std::vector<std::string> names_;
};

// A TCP port on 127.0.0.1 that says `banner` to whoever connects and closes: a service that is
// not HTTP.
std::unique_ptr<testing::LoopbackListener> bannerListener(std::string banner) {
  return std::make_unique<testing::LoopbackListener>([banner](int client) {
    (void)::send(client, banner.data(), banner.size(), MSG_NOSIGNAL);
    ::close(client);
  });
}

domain::NotificationChannel webhookChannel(const std::string& url) {
  domain::NotificationChannel c;
  c.id = "ch-1";
  c.project_id = "p-1";
  c.name = "hook";
  c.kind = "webhook";
  c.settings = {{"url", url}};
  return c;
}

ports::OutgoingMessage message() {
  ports::OutgoingMessage m;
  m.delivery_id = "d-1";
  m.event = "cert.expiring_soon";
  m.subject = "expiring";
  m.text = "soon";
  m.at = std::chrono::time_point_cast<domain::Duration>(std::chrono::system_clock::now());
  return m;
}

// `text` with every ":<digits>" written ":PORT".
std::string withoutPorts(const std::string& text) {
  std::string out;
  for (std::size_t i = 0; i < text.size(); ++i) {
    out += text[i];
    if (text[i] != ':' || i + 1 >= text.size() ||
        !std::isdigit(static_cast<unsigned char>(text[i + 1])))
      continue;
    out += "PORT";
    while (i + 1 < text.size() && std::isdigit(static_cast<unsigned char>(text[i + 1])))
      ++i;
  }
  return out;
}

// A webhook module target posting to `url`.
ports::TargetAccess hookTarget(const std::string& url, std::chrono::milliseconds timeout) {
  ports::TargetAccess target;
  target.name = "hook";
  target.settings = {{"url", url}};
  target.timeout = timeout;
  return target;
}

std::shared_ptr<const Outbound> defaultPolicy() {
  return std::make_shared<Outbound>(domain::OutboundPolicy{});
}

}  // namespace

TEST_CASE("outbound: refused addresses in every spelling never see a connection") {
  testing::HttpStub stub([](const std::string&, const std::string&) {
    return testing::StubReply{200, "text/plain", "ok"};
  });
  REQUIRE(stub.available());
  const std::string port = std::to_string(stub.port());
  adapters::notify::ChannelSenders senders{defaultPolicy()};
  adapters::distribution::WebhookModule module{defaultPolicy()};
  for (const std::string host : {"127.0.0.1", "127.1", "2130706433", "0x7f000001", "0177.0.0.1",
                                 "[::ffff:127.0.0.1]", "[::1]", "localhost", "169.254.169.254",
                                 "0xa9fea9fe", "10.0.0.1", "[fd00::1]", "100.64.0.1", "0.0.0.0"}) {
    CAPTURE(host);
    for (const char* scheme : {"http://", "https://"}) {
      const std::string url = scheme + host + ":" + port + "/hook";
      const auto sent = senders.send(webhookChannel(url), "", message(), 2s);
      REQUIRE_FALSE(sent.ok());
      CHECK(sent.error().code == ErrorCode::failed_precondition);
      CHECK_MESSAGE(sent.error().message.find("outbound policy") != std::string::npos,
                    sent.error().message);
      const auto checked = module.check(hookTarget(url, 2s));
      CHECK(checked.error_code == "CONNECT_FAILED");
      CHECK(checked.error.find("outbound policy") != std::string::npos);
    }
  }
  CHECK(stub.requests().empty());  // nothing connected, nothing sent
}

TEST_CASE("outbound: a name is connected to at the address that was checked, never re-resolved") {
  // Two receivers on one port: 127.0.0.2 (allowed) and 127.0.0.1 (not).
  std::unique_ptr<testing::HttpStub> allowed;
  std::unique_ptr<testing::HttpStub> internal;
  const auto ok = [](const std::string&, const std::string&) {
    return testing::StubReply{200, "text/plain", "ok"};
  };
  for (int attempt = 0; attempt < 20 && !internal; ++attempt) {
    allowed = std::make_unique<testing::HttpStub>(ok, "127.0.0.2");
    if (!allowed->available()) continue;
    internal = std::make_unique<testing::HttpStub>(ok, "127.0.0.1", allowed->port());
    if (!internal->available()) internal.reset();
  }
  REQUIRE(internal);
  const std::string url = "http://receiver.test:" + std::to_string(allowed->port()) + "/hook";
  auto resolver = std::make_shared<ChangingResolver>("127.0.0.2", "127.0.0.1");
  adapters::notify::ChannelSenders senders{std::make_shared<Outbound>(
      domain::OutboundPolicy({*domain::parseCidr("127.0.0.2/32")}), resolver)};

  const auto first = senders.send(webhookChannel(url), "", message(), 5s);
  REQUIRE_MESSAGE(first.ok(), first.error().message);
  CHECK(allowed->requests().size() == 1);
  CHECK(internal->requests().empty());
  // One lookup, by the policy: libcurl never asked the system (which knows no receiver.test).
  CHECK(resolver->names() == std::vector<std::string>{"receiver.test"});

  // The name now points inside: refused before any connection.
  const auto second = senders.send(webhookChannel(url), "", message(), 5s);
  REQUIRE_FALSE(second.ok());
  CHECK(second.error().reason == adapters::common::kOutboundRefused);
  CHECK(second.error().message.find("resolves to a loopback address") != std::string::npos);
  CHECK(internal->requests().empty());
  CHECK(allowed->requests().size() == 1);
}

TEST_CASE("outbound: a receiver's answer never reaches the error, only its status") {
  testing::HttpStub hostile([](const std::string&, const std::string&) {
    return testing::StubReply{403, "text/plain", kLeak};
  });
  REQUIRE(hostile.available());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  const auto url = hostile.url("/hook");
  for (const char* kind : {"webhook", "slack", "discord", "teams"}) {
    CAPTURE(kind);
    auto channel = webhookChannel(url);
    channel.kind = kind;
    const auto sent =
        senders.send(channel, std::string(kind) == "webhook" ? "" : url, message(), 5s);
    REQUIRE_FALSE(sent.ok());
    CHECK(sent.error().message.find("403") != std::string::npos);
    CHECK(sent.error().message.find("root:x") == std::string::npos);
    CHECK(sent.error().message.find("tk_internal") == std::string::npos);
  }
  adapters::distribution::WebhookModule module{testing::loopbackOutbound()};
  // https only for the module: its http URL to loopback is accepted by the client rules.
  const auto delivered =
      module.deliver(hookTarget(url, 5s), {"c", "x", {"x"}, "1", std::nullopt, "", "", ""});
  CHECK_FALSE(delivered.ok);
  CHECK(delivered.error.find("root:x") == std::string::npos);
}

TEST_CASE(
    "outbound: a closed, silent, non-HTTP or untrusted TLS port all read 'could not connect'") {
  const int closed = testing::freeLoopbackPort();
  testing::SilentListener silent;
  const auto banner = bannerListener(std::string(kLeak) + "\r\n");
  testing::HttpsReceiver tls;  // its certificate is from a CA not given here
  REQUIRE(silent.port() != 0);
  REQUIRE(banner->port() != 0);
  REQUIRE_MESSAGE(tls.available(), tls.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  adapters::distribution::WebhookModule module{testing::loopbackOutbound()};
  std::vector<std::string> channelErrors;
  std::vector<std::string> healthErrors;
  for (const int port : {closed, silent.port(), banner->port(), tls.port()}) {
    CAPTURE(port);
    const std::string url = "https://127.0.0.1:" + std::to_string(port) + "/hook";
    const auto started = std::chrono::steady_clock::now();
    const auto sent = senders.send(webhookChannel(url), "", message(), 1500ms);
    REQUIRE_FALSE(sent.ok());
    CHECK(sent.error().code == ErrorCode::unavailable);
    CHECK(sent.error().message.find("root:x") == std::string::npos);
    channelErrors.push_back(withoutPorts(sent.error().message));
    const auto health = module.check(hookTarget(url, 1500ms));
    CHECK(health.error_code == "CONNECT_FAILED");
    healthErrors.push_back(health.error_code + " " + withoutPorts(health.error));
    CHECK(std::chrono::steady_clock::now() - started < 8s);
  }
  for (const auto& e : channelErrors)
    CHECK(e == channelErrors.front());
  for (const auto& e : healthErrors)
    CHECK(e == healthErrors.front());
  CHECK(channelErrors.front().find("could not connect to 127.0.0.1:PORT") != std::string::npos);
}
