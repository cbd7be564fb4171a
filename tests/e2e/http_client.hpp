// A small libcurl client for the end-to-end tests: one request at a time, no cookie engine (the
// tests handle cookies explicitly), loopback only, bounded timeouts.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace certsteward::testing {

struct HttpResult {
  long status = 0;
  std::string body;
  std::multimap<std::string, std::string> headers;  // names lower-cased

  std::string header(const std::string& lowerName) const {
    const auto it = headers.find(lowerName);
    return it == headers.end() ? std::string{} : it->second;
  }
  std::vector<std::string> all(const std::string& lowerName) const;
};

class HttpClient {
 public:
  explicit HttpClient(std::string baseUrl);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // `headers` as "Name: value" lines. A JSON body gets Content-Type: application/json unless a
  // Content-Type header is given.
  HttpResult request(const std::string& method, const std::string& path,
                     const std::string& body = {}, std::vector<std::string> headers = {});

 private:
  std::string base_;
  void* curl_;
};

}  // namespace certsteward::testing
