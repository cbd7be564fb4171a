// HttpsReceiver: a webhook receiver started by a test (tests/support/https_receiver.py under
// Debian's python3) on 127.0.0.1 at a free port, with a certificate for 127.0.0.1 from a
// throw-away CA (caPem() for the module's ca_pem). requests() are the POSTs it received;
// answerWith() sets the status (and the body, "ok\n" unless given) of the next answers,
// answerWithFor() of a number of them only. Stopped
// and removed by the destructor.
#pragma once

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <boost/json.hpp>

#include <cctype>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "support/child_process.hpp"
#include "support/free_port.hpp"
#include "support/test_certificates.hpp"

namespace certsteward::testing {

class HttpsReceiver : public LocalServer {
 public:
  struct Request {
    std::string path;
    boost::json::object headers;
    std::string body;
    std::string method = "POST";

    // The header's value, its name matched case-insensitively ("" when absent).
    std::string header(std::string_view name) const {
      const auto lower = [](std::string_view t) {
        std::string out(t);
        for (char& c : out)
          c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return out;
      };
      for (const auto& [key, value] : headers) {
        if (lower(key) == lower(name) && value.is_string()) return std::string(value.as_string());
      }
      return {};
    }
  };

  // What a receiver computes to check a signature: lower-case hex HMAC-SHA256 (OpenSSL, apart
  // from the sender's code).
  static std::string hmacSha256Hex(const std::string& key, const std::string& message) {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
         reinterpret_cast<const unsigned char*>(message.data()), message.size(), out, &len);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string hex;
    for (unsigned int i = 0; i < len; ++i) {
      hex += kHex[out[i] >> 4];
      hex += kHex[out[i] & 0x0f];
    }
    return hex;
  }

  HttpsReceiver() {
    if (!std::filesystem::exists("/usr/bin/python3")) {
      reason_ = "python3 is not installed";
      return;
    }
    dir_ = freshServerDir("webhook");
    port_ = freeLoopbackPort();
    material_ = makeTestMaterial("127.0.0.1", "IP:127.0.0.1");
    std::ofstream(dir_ / "cert.pem") << material_.certificate_pem;
    std::ofstream(dir_ / "key.pem") << material_.private_key_pem;
    pid_ = spawnLogged(
        {"/usr/bin/python3",
         std::string(CERTSTEWARD_SOURCE_DIR) + "/tests/support/https_receiver.py",
         std::to_string(port_), (dir_ / "cert.pem").string(), (dir_ / "key.pem").string(),
         (dir_ / "requests.jsonl").string(), (dir_ / "status").string()},
        dir_ / "receiver.log");
    reason_ = waitUntilReady(
        pid_, dir_ / "receiver.log", "the webhook receiver",
        [](const std::string& text) { return text.find("listening") != std::string::npos; });
  }

  std::string url(const std::string& path = "/hook") const {
    return "https://127.0.0.1:" + std::to_string(port_) + path;
  }
  std::string caPem() const { return material_.chain_pem; }
  void answerWith(int status) { std::ofstream(dir_ / "status") << status; }
  // `status` (with `body`) for the next `count` answers only, then 200.
  void answerWithFor(int status, int count, const std::string& body) {
    std::ofstream(dir_ / "status", std::ios::binary) << status << " " << count << "\n" << body;
  }
  void answerWith(int status, const std::string& body) {
    std::ofstream(dir_ / "status", std::ios::binary) << status << "\n" << body;
  }
  std::vector<Request> requests() const {
    std::vector<Request> out;
    std::ifstream in(dir_ / "requests.jsonl");
    for (std::string line; std::getline(in, line);) {
      const auto v = boost::json::parse(line).as_object();
      out.push_back({std::string(v.at("path").as_string()), v.at("headers").as_object(),
                     std::string(v.at("body").as_string()),
                     std::string(v.at("method").as_string())});
    }
    return out;
  }

 private:
  TestMaterial material_;
};

}  // namespace certsteward::testing
