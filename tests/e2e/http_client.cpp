// libcurl glue for the end-to-end tests.
#include "e2e/http_client.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <stdexcept>

namespace certsteward::testing {
namespace {

std::size_t onBody(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

std::size_t onHeader(char* data, std::size_t size, std::size_t n, void* out) {
  std::string line(data, size * n);
  const auto colon = line.find(':');
  if (colon != std::string::npos) {
    std::string name = line.substr(0, colon);
    std::transform(name.begin(), name.end(), name.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    std::string value = line.substr(colon + 1);
    const auto b = value.find_first_not_of(" \t");
    const auto e = value.find_last_not_of(" \t\r\n");
    value = b == std::string::npos ? "" : value.substr(b, e - b + 1);
    static_cast<std::multimap<std::string, std::string>*>(out)->emplace(name, value);
  }
  return size * n;
}

}  // namespace

std::vector<std::string> HttpResult::all(const std::string& lowerName) const {
  std::vector<std::string> out;
  auto [b, e] = headers.equal_range(lowerName);
  for (auto it = b; it != e; ++it)
    out.push_back(it->second);
  return out;
}

HttpClient::HttpClient(std::string baseUrl) : base_(std::move(baseUrl)), curl_(curl_easy_init()) {
  if (curl_ == nullptr) throw std::runtime_error("curl_easy_init failed");
}

HttpClient::~HttpClient() {
  curl_easy_cleanup(static_cast<CURL*>(curl_));
}

HttpResult HttpClient::request(const std::string& method, const std::string& path,
                               const std::string& body, std::vector<std::string> headers) {
  CURL* c = static_cast<CURL*>(curl_);
  curl_easy_reset(c);
  HttpResult result;
  const std::string url = base_ + path;
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 30L);
  curl_easy_setopt(c, CURLOPT_PATH_AS_IS, 1L);  // send "../" as written: the server must cope
  if (method == "HEAD") curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  const bool hasType = std::any_of(headers.begin(), headers.end(), [](const std::string& h) {
    return h.rfind("Content-Type:", 0) == 0 || h.rfind("content-type:", 0) == 0;
  });
  if (!body.empty()) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
    if (!hasType) headers.emplace_back("Content-Type: application/json");
  }
  curl_slist* list = nullptr;
  for (const auto& h : headers)
    list = curl_slist_append(list, h.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, list);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, onBody);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &result.body);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, onHeader);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, &result.headers);
  const CURLcode rc = curl_easy_perform(c);
  curl_slist_free_all(list);
  if (rc != CURLE_OK)
    throw std::runtime_error(std::string("HTTP request failed: ") + curl_easy_strerror(rc));
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &result.status);
  return result;
}

}  // namespace certsteward::testing
