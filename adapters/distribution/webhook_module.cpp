// Signed HTTPS POSTs.
#include "adapters/distribution/webhook_module.hpp"

#include <curl/curl.h>
#include <openssl/rand.h>

#include <boost/json.hpp>

#include <chrono>
#include <mutex>

#include "adapters/common/http_client.hpp"
#include "adapters/distribution/net.hpp"
#include "domain/encoding.hpp"
#include "domain/time.hpp"

namespace certsteward::adapters::distribution {

namespace json = boost::json;
using ports::TargetOutcome;

namespace {

TargetOutcome curlFailure(CURLcode rc, const std::string& url) {
  const std::string why = std::string("cannot POST to ") + url + ": " + curl_easy_strerror(rc);
  if (rc == CURLE_OPERATION_TIMEDOUT) return TargetOutcome::failure("TIMEOUT", why);
  return TargetOutcome::failure("CONNECT_FAILED", why);
}

// A configured handle for `url`; the caller cleans it up.
CURL* handleFor(const ports::TargetAccess& target, const std::string& url) {
  CURL* curl = curl_easy_init();
  if (curl == nullptr) return nullptr;
  const auto ms = millis(target.timeout).count();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(ms));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(std::min<long long>(ms, 10000)));
  curl_easy_setopt(curl, CURLOPT_USERAGENT, "certsteward-webhook");
  if (const auto ca = domain::settingOf(target.settings, "ca_pem"); !ca.empty()) {
    curl_blob blob{const_cast<char*>(ca.data()), ca.size(), CURL_BLOB_COPY};
    curl_easy_setopt(curl, CURLOPT_CAINFO_BLOB, &blob);
  }
  return curl;
}

std::string deliveryId() {
  unsigned char bytes[16];
  RAND_bytes(bytes, sizeof bytes);
  return domain::toHex(std::string_view(reinterpret_cast<char*>(bytes), sizeof bytes));
}

TargetOutcome post(const ports::TargetAccess& target, const domain::CertificateVersion& v,
                   const char* action) {
  const std::string url = domain::settingOf(target.settings, "url");
  json::array names;
  for (const auto& n : v.names)
    names.emplace_back(n);
  json::object doc{{"action", action},
                   {"target", target.name},
                   {"certificate",
                    json::object{{"id", v.certificate_id},
                                 {"common_name", v.common_name},
                                 {"names", names},
                                 {"serial_number", v.serial_number},
                                 {"expires_at",
                                  v.expires_at ? json::value(domain::formatTimestamp(*v.expires_at))
                                               : json::value(nullptr)}}},
                   {"certificate_pem", v.certificate_pem},
                   {"chain_pem", v.chain_pem}};
  if (domain::settingOf(target.settings, "include_private_key") ==
      "true") {  // https only: see the rules
    doc["private_key_pem"] = v.private_key_pem;
  }
  const std::string id = deliveryId();
  doc["delivery_id"] = id;
  const std::string body = json::serialize(doc);
  const std::string timestamp =
      std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count());
  common::HttpRequest request;
  request.url = url;
  request.headers = {"Content-Type: application/json", "X-CertSteward-Timestamp: " + timestamp,
                     "X-CertSteward-Signature: sha256=" +
                         common::hmacSha256Hex(target.secret, timestamp + "." + body),
                     "X-CertSteward-Delivery: " + id};
  request.body = body;
  request.ca_pem = domain::settingOf(target.settings, "ca_pem");
  request.timeout = millis(target.timeout);
  request.response_limit = 4096;
  request.secrets = {target.secret};
  const auto answer = common::postHttp(request);
  if (!answer) {
    return TargetOutcome::failure(
        answer.error().reason == common::kTimedOut ? "TIMEOUT" : "CONNECT_FAILED",
        "cannot POST: " + answer.error().message);
  }
  const long status = answer->status;
  if (status < 200 || status > 299) {
    return TargetOutcome::failure(
        domain::target_error::rejected,
        url + " answered " + std::to_string(status));  // its body stays out: it could be anything
  }
  if (target.step)
    target.step(std::string(action) + " posted (delivery " + id + "), answered " +
                std::to_string(status));
  return TargetOutcome::success();
}

// Connects (and for https completes the handshake) without sending a request.
TargetOutcome reach(const ports::TargetAccess& target) {
  const std::string url = domain::settingOf(target.settings, "url");
  CURL* curl = handleFor(target, url);
  if (curl == nullptr) return TargetOutcome::failure("CONNECT_FAILED", "libcurl is unavailable");
  curl_easy_setopt(curl, CURLOPT_CONNECT_ONLY, 1L);
  const CURLcode rc = curl_easy_perform(curl);
  curl_easy_cleanup(curl);
  if (rc != CURLE_OK) return curlFailure(rc, url);
  return TargetOutcome::success();
}

}  // namespace

WebhookModule::WebhookModule() {
  static std::once_flag init;
  std::call_once(init, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

TargetOutcome WebhookModule::plan(const ports::TargetAccess& target,
                                  const domain::CertificateVersion&) {
  auto out = reach(target);
  if (!out.ok) return out;
  out.changes.push_back({"POST " + domain::settingOf(target.settings, "url"), "send"});
  return out;
}

TargetOutcome WebhookModule::deliver(const ports::TargetAccess& target,
                                     const domain::CertificateVersion& next) {
  return post(target, next, "deploy");
}

TargetOutcome WebhookModule::restore(const ports::TargetAccess& target,
                                     const domain::CertificateVersion* previous) {
  if (previous == nullptr) {
    return TargetOutcome::failure(domain::target_error::nothing_to_restore,
                                  "no earlier version is known");
  }
  return post(target, *previous, "rollback");
}

TargetOutcome WebhookModule::check(const ports::TargetAccess& target) {
  return reach(target);
}

}  // namespace certsteward::adapters::distribution
