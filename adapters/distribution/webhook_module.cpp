// Signed HTTPS POSTs.
#include <certsteward/adapters/distribution/webhook_module.hpp>

#include <openssl/rand.h>

#include <boost/json.hpp>

#include <chrono>

#include <certsteward/adapters/common/http_client.hpp>
#include <certsteward/adapters/common/outbound.hpp>
#include <certsteward/adapters/distribution/net.hpp>
#include <certsteward/domain/encoding.hpp>
#include <certsteward/domain/time.hpp>

namespace certsteward::adapters::distribution {

namespace json = boost::json;
using ports::TargetOutcome;

namespace {

// A failed POST or connection: CONNECT_FAILED whatever the cause (refused by the outbound
// policy, closed, silent, not HTTP): the words say no more than http_client's one phrase.
TargetOutcome connectFailure(const domain::Error& error) {
  return TargetOutcome::failure(domain::target_error::connect_failed, error.message);
}

std::string deliveryId() {
  unsigned char bytes[16];
  RAND_bytes(bytes, sizeof bytes);
  return domain::toHex(std::string_view(reinterpret_cast<char*>(bytes), sizeof bytes));
}

TargetOutcome post(const common::Outbound& outbound, const ports::TargetAccess& target,
                   const domain::CertificateVersion& v, const char* action) {
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
  request.outbound = &outbound;
  const auto answer = common::postHttp(request);
  if (!answer) return connectFailure(answer.error());
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
TargetOutcome reach(const common::Outbound& outbound, const ports::TargetAccess& target) {
  common::HttpRequest request;
  request.url = domain::settingOf(target.settings, "url");
  request.ca_pem = domain::settingOf(target.settings, "ca_pem");
  request.timeout = std::min(millis(target.timeout), std::chrono::milliseconds{10000});
  request.secrets = {target.secret};
  request.outbound = &outbound;
  if (auto reached = common::reachHttp(request); !reached) return connectFailure(reached.error());
  return TargetOutcome::success();
}

}  // namespace

WebhookModule::WebhookModule(std::shared_ptr<const common::Outbound> outbound)
    : outbound_(std::move(outbound)) {
  common::initCurlOnce();
}

TargetOutcome WebhookModule::plan(const ports::TargetAccess& target,
                                  const domain::CertificateVersion&) {
  auto out = reach(*outbound_, target);
  if (!out.ok) return out;
  out.changes.push_back({"POST " + domain::settingOf(target.settings, "url"), "send"});
  return out;
}

TargetOutcome WebhookModule::deliver(const ports::TargetAccess& target,
                                     const domain::CertificateVersion& next) {
  return post(*outbound_, target, next, "deploy");
}

TargetOutcome WebhookModule::restore(const ports::TargetAccess& target,
                                     const domain::CertificateVersion* previous) {
  if (previous == nullptr) {
    return TargetOutcome::failure(domain::target_error::nothing_to_restore,
                                  "no earlier version is known");
  }
  return post(*outbound_, target, *previous, "rollback");
}

TargetOutcome WebhookModule::check(const ports::TargetAccess& target) {
  return reach(*outbound_, target);
}

}  // namespace certsteward::adapters::distribution
