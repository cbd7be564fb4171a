// SmtpServer: an SMTP server started by a test (tests/support/smtp_server.py, aiosmtpd under
// Debian's python3) on 127.0.0.1 at a free port — STARTTLS required (or implicit TLS, or plain
// text) with a certificate for 127.0.0.1 from a throw-away CA (caPem()), AUTH PLAIN/LOGIN for
// kUser / kPassword, kRefused answered 550. messages() are what it accepted, parsed by Python's
// email package. Stopped and removed by the destructor.
#pragma once

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/child_process.hpp"
#include "support/free_port.hpp"
#include "support/test_certificates.hpp"

namespace certsteward::testing {

class SmtpServer : public LocalServer {
 public:
  enum class Mode { starttls, tls, none };

  static constexpr const char* kUser = "notifier";
  static constexpr const char* kPassword = "s3cret-Smtp-Pa55";
  static constexpr const char* kRefused = "nobody@example.test";

  struct Message {
    std::string mail_from;
    std::vector<std::string> rcpt_tos;
    std::string login;
    bool tls = false;
    std::string raw;                 // DATA as received
    boost::json::object headers;     // decoded (RFC 2047) by Python's email package
    std::vector<std::string> parts;  // content types, the multipart first
    std::string text;
    std::string html;
  };

  explicit SmtpServer(Mode mode = Mode::starttls) {
    if (!std::filesystem::exists("/usr/bin/python3") ||
        runShell("/usr/bin/python3 -c 'import aiosmtpd' 2>/dev/null") != 0) {
      reason_ = "python3-aiosmtpd is not installed (scripts/setup)";
      return;
    }
    dir_ = freshServerDir("smtp");
    port_ = freeLoopbackPort();
    material_ = makeTestMaterial("127.0.0.1", "IP:127.0.0.1");
    std::ofstream(dir_ / "cert.pem") << material_.certificate_pem;
    std::ofstream(dir_ / "key.pem") << material_.private_key_pem;
    const char* modeName = mode == Mode::starttls ? "starttls" : mode == Mode::tls ? "tls" : "none";
    pid_ = spawnLogged(
        {"/usr/bin/python3", std::string(CERTSTEWARD_SOURCE_DIR) + "/tests/support/smtp_server.py",
         std::to_string(port_), modeName, (dir_ / "cert.pem").string(), (dir_ / "key.pem").string(),
         kUser, kPassword, kRefused, (dir_ / "messages.jsonl").string()},
        dir_ / "server.log");
    reason_ = waitUntilReady(
        pid_, dir_ / "server.log", "the SMTP server",
        [](const std::string& text) { return text.find("listening") != std::string::npos; });
  }

  int port() const { return port_; }
  std::string caPem() const { return material_.chain_pem; }
  std::string log() const { return readLog(dir_ / "server.log"); }

  std::vector<Message> messages() const {
    std::vector<Message> out;
    std::ifstream in(dir_ / "messages.jsonl");
    for (std::string line; std::getline(in, line);) {
      const auto v = boost::json::parse(line).as_object();
      Message m;
      m.mail_from = std::string(v.at("mail_from").as_string());
      for (const auto& r : v.at("rcpt_tos").as_array())
        m.rcpt_tos.emplace_back(r.as_string());
      m.login = std::string(v.at("login").as_string());
      m.tls = v.at("tls").as_bool();
      m.raw = std::string(v.at("raw").as_string());
      m.headers = v.at("headers").as_object();
      for (const auto& p : v.at("parts").as_array())
        m.parts.emplace_back(p.as_string());
      m.text = std::string(v.at("text").as_string());
      m.html = std::string(v.at("html").as_string());
      out.push_back(std::move(m));
    }
    return out;
  }

 private:
  TestMaterial material_;
};

}  // namespace certsteward::testing
