// The notification channel senders against real servers started here on 127.0.0.1: an SMTP
// server (aiosmtpd: STARTTLS, implicit TLS or plain, AUTH, a refused recipient) and an HTTPS
// receiver that records what it was sent and answers scripted statuses and bodies — for the
// webhook (signed), Slack, Discord, Teams and Telegram formats.
#include <doctest/doctest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <boost/json.hpp>

#include <chrono>
#include <string>

#include <certsteward/adapters/notify/channel_senders.hpp>
#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/time.hpp>
#include "support/free_port.hpp"
#include "support/http_stub.hpp"
#include "support/https_receiver.hpp"
#include "support/outbound.hpp"
#include "support/silent_listener.hpp"
#include "support/smtp_server.hpp"
#include "support/test_certificates.hpp"

using namespace certsteward;
using namespace std::chrono_literals;
namespace json = boost::json;
using domain::ErrorCode;
using testing::SilentListener;
using testing::SmtpServer;

namespace {

constexpr auto kTimeout = 10s;
const std::string kSigningKey = "whsec_0123456789abcdef";

ports::OutgoingMessage sampleMessage() {
  ports::OutgoingMessage m;
  m.delivery_id = "65f0c0ffee0123456789abcd";
  m.event = "cert.expiring_soon";
  m.recovery = false;
  m.subject = "Certificate www.example.test expires in 7 days \xE2\x80\x94 renew it";
  m.text =
      "The certificate for www.example.test expires on 2026-01-08.\n"
      ".a line that starts with a dot\n"
      "equals = sign, and a trailing space \n"
      "A long line with \xC3\xBCn\xC3\xAF"
      "c\xC3\xB6"
      "de: " +
      std::string(150, 'x') + " end";
  m.html = "<p>The certificate for <b>www.example.test</b> expires on 2026-01-08.</p>";
  m.variables = {{"certificate.common_name", "www.example.test"}, {"days_left", "7"}};
  m.at = domain::fromUnixSeconds(1767225600);
  return m;
}

domain::NotificationChannel emailChannel(const SmtpServer& smtp, const std::string& tls) {
  domain::NotificationChannel c;
  c.id = "ch-email";
  c.kind = "email";
  c.settings = {{"host", "127.0.0.1"},
                {"port", std::to_string(smtp.port())},
                {"tls", tls},
                {"from", "certsteward@example.test"},
                {"from_name", "CertSteward \xC3\x85lerts"},
                {"to", "ops@example.test, second@example.test"},
                {"username", SmtpServer::kUser},
                {"ca_bundle", smtp.caPem()}};
  return c;
}

domain::NotificationChannel httpChannel(const std::string& kind,
                                        const testing::HttpsReceiver& receiver) {
  domain::NotificationChannel c;
  c.id = "ch-" + kind;
  c.kind = kind;
  c.settings = {{"ca_bundle", receiver.caPem()}};
  return c;
}

// A status's message for a test's log ("" when ok: doctest may stringify it either way).
std::string why(const domain::Status& status) {
  return status.ok() ? std::string() : status.error().message;
}

std::string withoutCr(std::string text) {
  std::erase(text, '\r');
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  return text;
}

std::string jsonHeader(const json::object& headers, const char* name) {
  const auto* v = headers.if_contains(name);
  return v != nullptr ? std::string(v->as_string()) : std::string();
}

std::size_t codePoints(const std::string& text) {
  std::size_t n = 0;
  for (const char c : text)
    n += (static_cast<unsigned char>(c) & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

bool hasControlCharacter(const std::string& text) {
  for (const char c : text) {
    if (static_cast<unsigned char>(c) < 0x20) return true;
  }
  return false;
}

}  // namespace

// ---------------------------------------------------------------------------------- email

TEST_CASE("email: a message arrives over STARTTLS with a text and an HTML part and its headers") {
  SmtpServer smtp;
  REQUIRE_MESSAGE(smtp.available(), smtp.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  const auto message = sampleMessage();

  const auto sent =
      senders.send(emailChannel(smtp, "starttls"), SmtpServer::kPassword, message, kTimeout);
  REQUIRE_MESSAGE(sent.ok(), why(sent));
  const auto received = smtp.messages();
  REQUIRE(received.size() == 1);
  const auto& m = received[0];
  CHECK(m.tls);
  CHECK(m.login == SmtpServer::kUser);
  CHECK(m.mail_from == "certsteward@example.test");
  CHECK(m.rcpt_tos == std::vector<std::string>{"ops@example.test", "second@example.test"});
  CHECK(jsonHeader(m.headers, "Message-ID") == "<65f0c0ffee0123456789abcd@certsteward>");
  CHECK(jsonHeader(m.headers, "Subject") == message.subject);  // RFC 2047 decoded
  CHECK(m.raw.find("Subject: =?UTF-8?B?") != std::string::npos);
  CHECK(jsonHeader(m.headers, "From").find("CertSteward \xC3\x85lerts") != std::string::npos);
  CHECK(jsonHeader(m.headers, "From").find("<certsteward@example.test>") != std::string::npos);
  CHECK(jsonHeader(m.headers, "To") == "ops@example.test, second@example.test");
  CHECK(jsonHeader(m.headers, "X-CertSteward-Delivery") == "65f0c0ffee0123456789abcd");
  CHECK(jsonHeader(m.headers, "X-CertSteward-Event") == "cert.expiring_soon");
  CHECK(jsonHeader(m.headers, "MIME-Version") == "1.0");
  CHECK(jsonHeader(m.headers, "Date").find("+0000") != std::string::npos);
  CHECK(m.parts == std::vector<std::string>{"multipart/alternative", "text/plain", "text/html"});
  CHECK(withoutCr(m.text) == message.text);
  CHECK(m.html.find("<!DOCTYPE html>") != std::string::npos);
  CHECK(m.html.find(message.html) != std::string::npos);
  CHECK(m.html.find("<meta charset=\"utf-8\">") != std::string::npos);

  // 7-bit, and no body line longer than quoted-printable allows.
  bool sevenBit = true;
  for (const char c : m.raw)
    sevenBit = sevenBit && static_cast<unsigned char>(c) < 0x80;
  CHECK(sevenBit);
  std::size_t longest = 0;
  const std::size_t bodyStart = m.raw.find("\r\n\r\n");
  for (std::size_t at = bodyStart; at < m.raw.size();) {
    const std::size_t end = std::min(m.raw.find("\r\n", at), m.raw.size());
    longest = std::max(longest, end - at);
    at = end + 2;
  }
  CHECK(longest <= 76);
}

TEST_CASE("email: CR and LF in the subject or the sender's name cannot add a header") {
  SmtpServer smtp;
  REQUIRE_MESSAGE(smtp.available(), smtp.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  auto channel = emailChannel(smtp, "starttls");
  channel.settings["from_name"] = "Eve\r\nX-Injected: 1";
  auto message = sampleMessage();
  message.subject = "Hello\r\nBcc: victim@example.test\r\n\r\nbody";
  message.delivery_id = "id\r\nX-Other: 2";
  REQUIRE(senders.send(channel, SmtpServer::kPassword, message, kTimeout).ok());
  const auto received = smtp.messages();
  REQUIRE(received.size() == 1);
  const auto& m = received[0];
  CHECK_FALSE(m.headers.contains("Bcc"));
  CHECK_FALSE(m.headers.contains("X-Injected"));
  CHECK_FALSE(m.headers.contains("X-Other"));
  CHECK(m.rcpt_tos.size() == 2);
  CHECK(jsonHeader(m.headers, "Subject").find("Bcc: victim@example.test") != std::string::npos);
  CHECK(jsonHeader(m.headers, "Message-ID") == "<idX-Other2@certsteward>");
}

TEST_CASE(
    "email: a wrong password is an authentication failure with the server's reply code, not the "
    "password") {
  SmtpServer smtp;
  REQUIRE_MESSAGE(smtp.available(), smtp.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  const std::string wrong = "not-the-Password-42";
  const auto sent = senders.send(emailChannel(smtp, "starttls"), wrong, sampleMessage(), kTimeout);
  REQUIRE_FALSE(sent.ok());
  CHECK(sent.error().code == ErrorCode::failed_precondition);
  CHECK(sent.error().message.find("refused the authentication") != std::string::npos);
  CHECK(sent.error().message.find("535") != std::string::npos);
  CHECK(sent.error().message.find(wrong) == std::string::npos);
  CHECK(sent.error().message.find(domain::base64Encode(wrong)) == std::string::npos);
  CHECK(smtp.messages().empty());
}

TEST_CASE("email: a refused recipient is named with the server's reply code") {
  SmtpServer smtp;
  REQUIRE_MESSAGE(smtp.available(), smtp.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  auto channel = emailChannel(smtp, "starttls");
  channel.settings["to"] = std::string("ops@example.test,") + SmtpServer::kRefused;
  const auto sent = senders.send(channel, SmtpServer::kPassword, sampleMessage(), kTimeout);
  REQUIRE_FALSE(sent.ok());
  CHECK(sent.error().code == ErrorCode::failed_precondition);
  CHECK(sent.error().message.find(SmtpServer::kRefused) != std::string::npos);
  CHECK(sent.error().message.find("550") != std::string::npos);
  CHECK(sent.error().message.find(SmtpServer::kPassword) == std::string::npos);
  CHECK(smtp.messages().empty());
}

TEST_CASE("email: an unreachable or silent server is unavailable, within the timeout") {
  SmtpServer smtp;  // only for its settings; the port is replaced
  REQUIRE_MESSAGE(smtp.available(), smtp.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  auto closed = emailChannel(smtp, "starttls");
  const std::string port = std::to_string(testing::freeLoopbackPort());
  closed.settings["port"] = port;
  const auto refused = senders.send(closed, SmtpServer::kPassword, sampleMessage(), kTimeout);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::unavailable);
  CHECK(refused.error().message.find("could not connect to 127.0.0.1:" + port) !=
        std::string::npos);

  SilentListener silent;
  REQUIRE(silent.port() != 0);
  auto mute = emailChannel(smtp, "starttls");
  mute.settings["port"] = std::to_string(silent.port());
  const auto started = std::chrono::steady_clock::now();
  const auto timedOut = senders.send(mute, SmtpServer::kPassword, sampleMessage(), 700ms);
  CHECK(std::chrono::steady_clock::now() - started < 5s);
  REQUIRE_FALSE(timedOut.ok());
  CHECK(timedOut.error().code == ErrorCode::unavailable);
}

TEST_CASE("email: the server certificate is verified, and tls none is for a loopback host only") {
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  {
    SmtpServer smtp;
    REQUIRE_MESSAGE(smtp.available(), smtp.reason());
    // A certificate from another CA (of the same name: the handshake fails) or from none the
    // system trusts: refused, nothing sent.
    auto otherCa = emailChannel(smtp, "starttls");
    otherCa.settings["ca_bundle"] =
        testing::makeTestMaterial("127.0.0.1", "IP:127.0.0.1").chain_pem;
    const auto mismatch = senders.send(otherCa, SmtpServer::kPassword, sampleMessage(), kTimeout);
    REQUIRE_FALSE(mismatch.ok());
    CHECK(mismatch.error().message.find("could not connect") != std::string::npos);
    auto systemCas = emailChannel(smtp, "starttls");
    systemCas.settings.erase("ca_bundle");
    const auto untrusted =
        senders.send(systemCas, SmtpServer::kPassword, sampleMessage(), kTimeout);
    REQUIRE_FALSE(untrusted.ok());
    // One phrase for every failed connection; why (not trusted) is in the server log.
    CHECK_MESSAGE(untrusted.error().code == ErrorCode::unavailable, untrusted.error().message);
    CHECK(untrusted.error().message.find("could not connect") != std::string::npos);
    CHECK(smtp.messages().empty());
  }
  {
    SmtpServer plain(SmtpServer::Mode::none);
    REQUIRE_MESSAGE(plain.available(), plain.reason());
    const auto sent =
        senders.send(emailChannel(plain, "none"), SmtpServer::kPassword, sampleMessage(), kTimeout);
    REQUIRE_MESSAGE(sent.ok(), why(sent));
    REQUIRE(plain.messages().size() == 1);
    CHECK_FALSE(plain.messages()[0].tls);
    CHECK(plain.messages()[0].login == SmtpServer::kUser);
    // starttls (the default) never falls back to plain text.
    auto required = emailChannel(plain, "starttls");
    const auto noTls = senders.send(required, SmtpServer::kPassword, sampleMessage(), kTimeout);
    REQUIRE_FALSE(noTls.ok());
    CHECK(noTls.error().message.find("STARTTLS") != std::string::npos);
    CHECK(plain.messages().size() == 1);
    // Plain text to anything but a loopback host is refused before connecting.
    auto remote = emailChannel(plain, "none");
    remote.settings["host"] = "mail.example.test";
    const auto refused = senders.send(remote, SmtpServer::kPassword, sampleMessage(), kTimeout);
    REQUIRE_FALSE(refused.ok());
    CHECK(refused.error().code == ErrorCode::failed_precondition);
    CHECK(refused.error().message.find("loopback") != std::string::npos);
  }
  {
    SmtpServer implicit(SmtpServer::Mode::tls);
    REQUIRE_MESSAGE(implicit.available(), implicit.reason());
    const auto sent = senders.send(emailChannel(implicit, "tls"), SmtpServer::kPassword,
                                   sampleMessage(), kTimeout);
    REQUIRE_MESSAGE(sent.ok(), why(sent));
    REQUIRE(implicit.messages().size() == 1);
    CHECK(implicit.messages()[0].tls);
  }
}

// -------------------------------------------------------------------------------- webhook

TEST_CASE("webhook: the default JSON document, signed, with the custom headers") {
  testing::HttpsReceiver receiver;
  REQUIRE_MESSAGE(receiver.available(), receiver.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  auto channel = httpChannel("webhook", receiver);
  channel.settings["url"] = receiver.url("/hooks/certsteward?team=ops");
  channel.settings["headers"] = "X-Api-Key: key-123\r\n\nX-Team:  platform ";
  const auto message = sampleMessage();
  const auto before = std::chrono::system_clock::now();

  const auto sent = senders.send(channel, "whsec_signing", message, kTimeout);
  REQUIRE_MESSAGE(sent.ok(), why(sent));
  const auto requests = receiver.requests();
  REQUIRE(requests.size() == 1);
  const auto& r = requests[0];
  CHECK(r.method == "POST");
  CHECK(r.path == "/hooks/certsteward?team=ops");
  CHECK(r.header("Content-Type") == "application/json");
  CHECK(r.header("X-Api-Key") == "key-123");
  CHECK(r.header("X-Team") == "platform");
  CHECK(r.header("X-CertSteward-Delivery") == message.delivery_id);
  CHECK(r.header("X-CertSteward-Event") == "cert.expiring_soon");
  const std::string timestamp = r.header("X-CertSteward-Timestamp");
  const auto seconds = std::stoll(timestamp);
  CHECK(seconds >=
        std::chrono::duration_cast<std::chrono::seconds>(before.time_since_epoch()).count() - 1);
  CHECK(r.header("X-CertSteward-Signature") ==
        "sha256=" +
            testing::HttpsReceiver::hmacSha256Hex("whsec_signing", timestamp + "." + r.body));
  const auto doc = json::parse(r.body).as_object();
  CHECK(doc.at("delivery_id").as_string() == message.delivery_id);
  CHECK(doc.at("event").as_string() == "cert.expiring_soon");
  CHECK(doc.at("recovery").as_bool() == false);
  CHECK(doc.at("subject").as_string() == message.subject);
  CHECK(doc.at("message").as_string() == message.text);
  CHECK(doc.at("at").as_string() == "2026-01-01T00:00:00.000Z");
  CHECK(doc.at("variables") ==
        json::value(
            json::object{{"certificate.common_name", "www.example.test"}, {"days_left", "7"}}));
}

TEST_CASE(
    "webhook: a body template is sent as is with its content type, unsigned without a "
    "secret") {
  testing::HttpsReceiver receiver;
  REQUIRE_MESSAGE(receiver.available(), receiver.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  auto channel = httpChannel("webhook", receiver);
  channel.settings["url"] = receiver.url("/custom");
  channel.settings["content_type"] = "application/vnd.acme+json";
  auto message = sampleMessage();
  message.body = R"({"alert":"www.example.test expires in 7 days","n":7})";

  REQUIRE(senders.send(channel, "s3", message, kTimeout).ok());
  REQUIRE(senders.send(channel, "", message, kTimeout).ok());
  const auto requests = receiver.requests();
  REQUIRE(requests.size() == 2);
  CHECK(requests[0].body == message.body);
  CHECK(requests[0].header("Content-Type") == "application/vnd.acme+json");
  CHECK(requests[0].header("X-CertSteward-Signature") ==
        "sha256=" + testing::HttpsReceiver::hmacSha256Hex(
                        "s3", requests[0].header("X-CertSteward-Timestamp") + "." + message.body));
  CHECK(requests[1].header("X-CertSteward-Signature").empty());
  CHECK(requests[1].header("X-CertSteward-Delivery") == message.delivery_id);
}

TEST_CASE(
    "webhook: with secret_header the secret is that header's value, not a signature, and a token "
    "in the URL's query is never quoted back") {
  testing::HttpsReceiver receiver;
  REQUIRE_MESSAGE(receiver.available(), receiver.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  auto channel = httpChannel("webhook", receiver);
  channel.settings["url"] = receiver.url("/ntfy?auth=tk_query_token_123");
  channel.settings["secret_header"] = "Authorization";
  REQUIRE(senders.send(channel, "Bearer tk_sealed_token_456", sampleMessage(), kTimeout).ok());
  const auto requests = receiver.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].header("Authorization") == "Bearer tk_sealed_token_456");
  CHECK(requests[0].header("X-CertSteward-Signature").empty());

  receiver.answerWith(400, "bad auth tk_query_token_123 and Bearer tk_sealed_token_456");
  const auto refused =
      senders.send(channel, "Bearer tk_sealed_token_456", sampleMessage(), kTimeout);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().message.find("400") != std::string::npos);
  CHECK(refused.error().message.find("tk_query_token_123") == std::string::npos);
  CHECK(refused.error().message.find("tk_sealed_token_456") == std::string::npos);
}

TEST_CASE(
    "webhook: 5xx and 429 are unavailable, other 4xx failed_precondition with the status, never "
    "the body") {
  testing::HttpsReceiver receiver;
  REQUIRE_MESSAGE(receiver.available(), receiver.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  auto channel = httpChannel("webhook", receiver);
  channel.settings["url"] = receiver.url("/hook");

  receiver.answerWith(500, "internal trouble");
  auto sent = senders.send(channel, kSigningKey, sampleMessage(), kTimeout);
  REQUIRE_FALSE(sent.ok());
  CHECK(sent.error().code == ErrorCode::unavailable);
  CHECK(sent.error().message.find("500") != std::string::npos);

  receiver.answerWith(429, "slow down");
  sent = senders.send(channel, kSigningKey, sampleMessage(), kTimeout);
  CHECK(sent.error().code == ErrorCode::unavailable);

  receiver.answerWith(400, "invalid payload:\r\n\x01 field 'x' is missing" + std::string(400, 'y'));
  sent = senders.send(channel, kSigningKey, sampleMessage(), kTimeout);
  REQUIRE_FALSE(sent.ok());
  CHECK(sent.error().code == ErrorCode::failed_precondition);
  CHECK(sent.error().message.find("400") != std::string::npos);
  CHECK_MESSAGE(sent.error().message.find("invalid payload") == std::string::npos,
                sent.error().message);
  CHECK(sent.error().message.find("refused the message") != std::string::npos);
  CHECK_FALSE(hasControlCharacter(sent.error().message));
  CHECK(sent.error().message.size() < 300);

  receiver.answerWith(302, "moved");
  sent = senders.send(channel, kSigningKey, sampleMessage(), kTimeout);
  CHECK(sent.error().code == ErrorCode::failed_precondition);
  CHECK(receiver.requests().size() == 4);  // one POST each, no retries, no redirect followed
}

TEST_CASE(
    "webhook: bad headers and URLs are refused before anything is sent, and the "
    "certificate is verified") {
  testing::HttpsReceiver receiver;
  REQUIRE_MESSAGE(receiver.available(), receiver.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  auto channel = httpChannel("webhook", receiver);
  channel.settings["url"] = receiver.url("/hook");
  for (const char* bad : {"Content-Type: text/plain", "x-certsteward-signature: sha256=forged",
                          "Bad Name: v", "X-Ok: a\rb", "no colon here", "Host: elsewhere"}) {
    auto withHeader = channel;
    withHeader.settings["headers"] = bad;
    const auto sent = senders.send(withHeader, kSigningKey, sampleMessage(), kTimeout);
    REQUIRE_FALSE(sent.ok());
    CHECK(sent.error().code == ErrorCode::failed_precondition);
  }
  auto plainRemote = channel;
  plainRemote.settings["url"] = "http://hooks.example.test/hook";
  CHECK(senders.send(plainRemote, kSigningKey, sampleMessage(), kTimeout).error().code ==
        ErrorCode::failed_precondition);
  auto otherScheme = channel;
  otherScheme.settings["url"] = "ftp://127.0.0.1/hook";
  CHECK_FALSE(senders.send(otherScheme, kSigningKey, sampleMessage(), kTimeout).ok());
  CHECK(receiver.requests().empty());

  auto untrusted = channel;
  untrusted.settings.erase("ca_bundle");
  const auto refused = senders.send(untrusted, kSigningKey, sampleMessage(), kTimeout);
  REQUIRE_FALSE(refused.ok());
  CHECK(refused.error().code == ErrorCode::unavailable);
  CHECK(refused.error().message.find("could not connect") != std::string::npos);
  CHECK(receiver.requests().empty());

  auto closed = channel;
  const std::string port = std::to_string(testing::freeLoopbackPort());
  closed.settings["url"] = "https://127.0.0.1:" + port + "/hook";
  const auto down = senders.send(closed, kSigningKey, sampleMessage(), kTimeout);
  CHECK(down.error().code == ErrorCode::unavailable);
  CHECK(down.error().message.find("could not connect to 127.0.0.1:" + port) != std::string::npos);

  SilentListener silent;
  auto mute = channel;
  mute.settings["url"] = "https://127.0.0.1:" + std::to_string(silent.port()) + "/hook";
  const auto started = std::chrono::steady_clock::now();
  CHECK(senders.send(mute, kSigningKey, sampleMessage(), 700ms).error().code ==
        ErrorCode::unavailable);
  CHECK(std::chrono::steady_clock::now() - started < 5s);
}

TEST_CASE("webhook: plain http to a loopback host works, and an answer is read up to 64 KiB") {
  testing::HttpStub stub([](const std::string&, const std::string& path) {
    if (path == "/big") return testing::StubReply{400, "text/plain", std::string(200000, 'z')};
    return testing::StubReply{204, "text/plain", ""};
  });
  REQUIRE(stub.available());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  domain::NotificationChannel channel;
  channel.kind = "webhook";
  channel.settings = {{"url", stub.url("/ok")}};
  const auto sent = senders.send(channel, kSigningKey, sampleMessage(), kTimeout);
  CHECK_MESSAGE(sent.ok(), why(sent));
  channel.settings["url"] = stub.url("/big");
  const auto big = senders.send(channel, kSigningKey, sampleMessage(), kTimeout);
  REQUIRE_FALSE(big.ok());
  CHECK(big.error().code == ErrorCode::failed_precondition);
  CHECK(big.error().message.find("400") != std::string::npos);
  CHECK(stub.requests() == std::vector<std::string>{"POST /ok", "POST /big"});
}

// ------------------------------------------------------------------ slack, discord, teams

TEST_CASE("slack: {\"text\"} with subject and text, and the URL never appears in an error") {
  testing::HttpsReceiver receiver;
  REQUIRE_MESSAGE(receiver.available(), receiver.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  const auto channel = httpChannel("slack", receiver);
  const std::string url = receiver.url("/services/T0001/B0002/XXXXsecretXXXX");
  auto message = sampleMessage();
  message.text = "Renew <now> & check";

  REQUIRE(senders.send(channel, url, message, kTimeout).ok());
  const auto requests = receiver.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "POST");
  CHECK(requests[0].path == "/services/T0001/B0002/XXXXsecretXXXX");
  CHECK(requests[0].header("Content-Type") == "application/json");
  CHECK(json::parse(requests[0].body) ==
        json::value(json::object{{"text", message.subject + "\nRenew &lt;now&gt; &amp; check"}}));

  receiver.answerWith(404, "no_service");
  const auto gone = senders.send(channel, url, message, kTimeout);
  REQUIRE_FALSE(gone.ok());
  CHECK(gone.error().code == ErrorCode::failed_precondition);
  CHECK(gone.error().message.find("404") != std::string::npos);
  CHECK(gone.error().message.find("no_service") == std::string::npos);  // the receiver's words
  CHECK(gone.error().message.find("XXXXsecretXXXX") == std::string::npos);

  const std::string closed = "https://127.0.0.1:" + std::to_string(testing::freeLoopbackPort()) +
                             "/services/T0001/B0002/XXXXsecretXXXX";
  const auto down = senders.send(channel, closed, message, kTimeout);
  CHECK(down.error().code == ErrorCode::unavailable);
  CHECK(down.error().message.find("XXXXsecretXXXX") == std::string::npos);
  CHECK(senders.send(channel, "", message, kTimeout).error().code ==
        ErrorCode::failed_precondition);  // no URL: nothing to send to
  const auto plain =
      senders.send(channel, "http://hooks.example.test/services/XXXXsecretXXXX", message, kTimeout);
  CHECK(plain.error().code == ErrorCode::failed_precondition);
  CHECK(plain.error().message.find("XXXXsecretXXXX") == std::string::npos);
}

TEST_CASE("discord: {\"content\"} cut to 2000 characters on a code point, with an ellipsis") {
  testing::HttpsReceiver receiver;
  REQUIRE_MESSAGE(receiver.available(), receiver.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  const auto channel = httpChannel("discord", receiver);
  const std::string url = receiver.url("/api/webhooks/123/tokenXYZ");
  auto message = sampleMessage();
  message.subject = "Expiring";
  message.text = "short";
  REQUIRE(senders.send(channel, url, message, kTimeout).ok());

  message.text = std::string(2500, 'a');
  REQUIRE(senders.send(channel, url, message, kTimeout).ok());
  std::string accented;
  for (int i = 0; i < 2500; ++i)
    accented += "\xC3\xA9";  // é: two bytes, one character
  message.text = accented;
  REQUIRE(senders.send(channel, url, message, kTimeout).ok());

  const auto requests = receiver.requests();
  REQUIRE(requests.size() == 3);
  for (const auto& r : requests)
    CHECK(r.method == "POST");
  const auto first = json::parse(requests[0].body).as_object();
  CHECK(first.at("content").as_string() == "Expiring\nshort");
  CHECK(first.at("allowed_mentions") == json::value(json::object{{"parse", json::array{}}}));
  const std::string cut(json::parse(requests[1].body).as_object().at("content").as_string());
  CHECK(codePoints(cut) == 2000);
  CHECK(cut == "Expiring\n" + std::string(1990, 'a') + "\xE2\x80\xA6");
  const std::string cutAccented(
      json::parse(requests[2].body).as_object().at("content").as_string());
  CHECK(codePoints(cutAccented) == 2000);
  CHECK(cutAccented.ends_with("\xC3\xA9\xE2\x80\xA6"));
  CHECK(cutAccented.find("\xEF\xBF\xBD") == std::string::npos);  // no broken sequence
}

TEST_CASE("teams: one Adaptive Card message in the documented shape") {
  testing::HttpsReceiver receiver;
  REQUIRE_MESSAGE(receiver.available(), receiver.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  const auto message = sampleMessage();
  REQUIRE(senders
              .send(httpChannel("teams", receiver), receiver.url("/workflows/abc?sig=secret"),
                    message, kTimeout)
              .ok());
  const auto requests = receiver.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "POST");
  CHECK(requests[0].path == "/workflows/abc?sig=secret");
  const json::value expected = json::parse(R"({"type":"message","attachments":[{
      "contentType":"application/vnd.microsoft.card.adaptive",
      "content":{"$schema":"http://adaptivecards.io/schemas/adaptive-card.json",
                 "type":"AdaptiveCard","version":"1.4",
                 "body":[{"type":"TextBlock","text":"SUBJECT","weight":"Bolder","wrap":true},
                         {"type":"TextBlock","text":"TEXT","wrap":true}]}}]})");
  json::value want = expected;
  auto& body = want.at("attachments").at(0).at("content").at("body").as_array();
  body[0].as_object()["text"] = message.subject;
  body[1].as_object()["text"] = message.text;
  CHECK(json::parse(requests[0].body) == want);
}

// ------------------------------------------------------------------------------- telegram

TEST_CASE(
    "telegram: sendMessage under /bot<token>/, the status on failure (the description goes to the "
    "log), never the token") {
  testing::HttpsReceiver receiver;
  REQUIRE_MESSAGE(receiver.available(), receiver.reason());
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  auto channel = httpChannel("telegram", receiver);
  channel.settings["chat_id"] = "-1001234567890";
  channel.settings["api_base_url"] = receiver.url("/");
  const std::string token = "123456789:AAH-fake_Token0123456789abcdef";
  const auto message = sampleMessage();

  receiver.answerWith(200, R"({"ok":true,"result":{"message_id":7}})");
  const auto sent = senders.send(channel, token, message, kTimeout);
  REQUIRE_MESSAGE(sent.ok(), why(sent));
  auto requests = receiver.requests();
  REQUIRE(requests.size() == 1);
  CHECK(requests[0].method == "POST");
  CHECK(requests[0].path == "/bot" + token + "/sendMessage");
  CHECK(json::parse(requests[0].body) ==
        json::value(json::object{{"chat_id", -1001234567890LL},
                                 {"text", message.subject + "\n\n" + message.text},
                                 {"disable_web_page_preview", true}}));

  receiver.answerWith(
      400, R"({"ok":false,"error_code":400,"description":"Bad Request: chat not found"})");
  const auto missing = senders.send(channel, token, message, kTimeout);
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().code == ErrorCode::failed_precondition);
  CHECK(missing.error().message.find("HTTP 400") != std::string::npos);
  CHECK(missing.error().message.find("chat not found") == std::string::npos);
  CHECK(missing.error().message.find(token) == std::string::npos);
  CHECK(missing.error().message.find("AAH-fake") == std::string::npos);

  receiver.answerWith(429, R"({"ok":false,"error_code":429,"description":"Too Many Requests: )"
                           R"(retry after 3","parameters":{"retry_after":3}})");
  const auto busy = senders.send(channel, token, message, kTimeout);
  CHECK(busy.error().code == ErrorCode::unavailable);
  CHECK(busy.error().message.find("HTTP 429") != std::string::npos);

  receiver.answerWith(401, R"({"ok":false,"description":"Unauthorized: token )" + token + R"("})");
  const auto echoed = senders.send(channel, token, message, kTimeout);
  CHECK(echoed.error().code == ErrorCode::failed_precondition);
  CHECK(echoed.error().message.find(token) == std::string::npos);

  receiver.answerWith(200, R"({"ok":false})");
  CHECK(senders.send(channel, token, message, kTimeout).error().code ==
        ErrorCode::failed_precondition);

  channel.settings["chat_id"] = "@certsteward_alerts";
  receiver.answerWith(200, R"({"ok":true,"result":{}})");
  REQUIRE(senders.send(channel, token, message, kTimeout).ok());
  CHECK(json::parse(receiver.requests().back().body).at("chat_id") == "@certsteward_alerts");

  // A token that would change the URL, and a transport failure: neither shows the token.
  const auto malformed = senders.send(channel, "123:abc/../../other?x=", message, kTimeout);
  CHECK(malformed.error().code == ErrorCode::failed_precondition);
  CHECK(malformed.error().message.find("abc/..") == std::string::npos);
  channel.settings["api_base_url"] =
      "https://127.0.0.1:" + std::to_string(testing::freeLoopbackPort());
  const auto down = senders.send(channel, token, message, kTimeout);
  CHECK(down.error().code == ErrorCode::unavailable);
  CHECK(down.error().message.find(token) == std::string::npos);
  CHECK(receiver.requests().size() == 6);
}

TEST_CASE("channel senders: an unknown kind is failed_precondition") {
  adapters::notify::ChannelSenders senders{testing::loopbackOutbound()};
  domain::NotificationChannel channel;
  channel.kind = "pager";
  const auto sent = senders.send(channel, "", sampleMessage(), kTimeout);
  REQUIRE_FALSE(sent.ok());
  CHECK(sent.error().code == ErrorCode::failed_precondition);
  CHECK(sent.error().message.find("pager") != std::string::npos);
}
