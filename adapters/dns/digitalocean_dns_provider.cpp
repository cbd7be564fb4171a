// DigitalOcean's API v2 (Domain Records), for DNS-01.
#include <certsteward/adapters/dns/digitalocean_dns_provider.hpp>

#include <algorithm>

#include <certsteward/adapters/dns/dns_names.hpp>
#include <certsteward/adapters/dns/json_api.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>

namespace certsteward::adapters::dns {

namespace json = boost::json;
using domain::ErrorCode;
using domain::makeError;

namespace {

constexpr int kMaxPages = 50;  // bounds every walk through a paged answer

// What an answer other than success means, in words that say what to fix (never the token).
domain::Error refusal(long status, const json::object& doc, const std::string& zone) {
  std::string said = jsonText(doc, "message");
  if (said.size() > 200) said.resize(200);
  const std::string detail = said.empty() ? std::string() : ": " + said;
  const std::string code = std::to_string(status);
  if (status == 401 || status == 403) {
    return makeError(ErrorCode::permission_denied,
                     "DigitalOcean refused the API token (" + code + detail +
                         "): check the DNS credential's token and that it has write access to "
                         "domains");
  }
  if (status == 404) {
    return makeError(ErrorCode::failed_precondition,
                     "DigitalOcean has no domain " + zone +
                         " under this token: add it under Networking, Domains" + detail);
  }
  if (status == 429) {
    return makeError(ErrorCode::unavailable,
                     "DigitalOcean's rate limit was reached (429): the change is retried later");
  }
  if (status == 400 || status == 422) {
    return makeError(ErrorCode::invalid_argument,
                     "DigitalOcean refused the change (" + code + ")" + detail);
  }
  return makeError(ErrorCode::unavailable, "DigitalOcean answered " + code + detail);
}

bool numericId(const std::string& id) {
  return !id.empty() && id.size() <= 20 &&
         std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// The name as DigitalOcean writes it inside its domain: relative, "@" for the domain itself.
std::string inDomain(const std::string& name, const std::string& zone) {
  if (name == zone) return "@";
  return name.substr(0, name.size() - zone.size() - 1);
}

}  // namespace

DigitalOceanDnsProvider::DigitalOceanDnsProvider(DigitalOceanSettings settings)
    : settings_(std::move(settings)),
      checker_(Rfc2136DnsProvider::visibilityChecker(settings_.check_servers, settings_.timeout,
                                                     settings_.poll_interval, settings_.outbound)) {
}

DigitalOceanDnsProvider::~DigitalOceanDnsProvider() = default;

domain::Status DigitalOceanDnsProvider::validate(const DigitalOceanSettings& s) {
  const auto& url = s.api_url;
  if (url.find("://") == std::string::npos || !common::isAllowedHttpUrl(url)) {
    return makeError(ErrorCode::invalid_argument,
                     "api_url must be an https URL (http only to a loopback host)");
  }
  if (url.find_first_of("?#@") != std::string::npos) {
    return makeError(ErrorCode::invalid_argument,
                     "api_url must be the API's base address, such as " +
                         std::string(DigitalOceanSettings::kApiUrl) + " (no query or user)");
  }
  if (s.api_token.empty())
    return makeError(ErrorCode::invalid_argument, "the API token is missing");
  if (s.api_token.find_first_of(" \t\r\n") != std::string::npos) {
    return makeError(ErrorCode::invalid_argument,
                     "the API token must be the token alone, without spaces or 'Bearer'");
  }
  if (s.check_servers.empty()) {
    return makeError(ErrorCode::invalid_argument,
                     "check_servers must name at least one server (host[:port])");
  }
  if (s.per_page < 1 || s.per_page > 200) {
    return makeError(ErrorCode::invalid_argument, "per_page must be 1..200");
  }
  return {};
}

domain::Result<JsonAnswer> DigitalOceanDnsProvider::call(std::string_view method,
                                                         const std::string& target,
                                                         const std::string& body) {
  const auto request =
      bearerJsonRequest(settings_.api_url + target, settings_.api_token, body, settings_.ca_pem,
                        settings_.timeout, settings_.outbound.get());
  return callJsonApi(method, request, settings_.max_retries);
}

domain::Result<std::vector<DigitalOceanDnsProvider::Record>> DigitalOceanDnsProvider::txtRecords(
    const std::string& zone, const std::string& name) {
  std::vector<Record> out;
  const std::string relativeName = inDomain(name, zone);
  for (int page = 1; page <= kMaxPages; ++page) {
    // `name` filters by the record's full name; the answer names records within the domain.
    auto answer = call("GET", "/domains/" + zone + "/records?type=TXT&name=" + name +
                                  "&per_page=" + std::to_string(settings_.per_page) +
                                  "&page=" + std::to_string(page));
    if (!answer) return answer.error();
    if (answer->status != 200) return refusal(answer->status, answer->doc, zone);
    const auto* records = answer->doc.if_contains("domain_records");
    if (records == nullptr || !records->is_array()) {
      return makeError(ErrorCode::unavailable, "DigitalOcean answered without domain_records");
    }
    for (const auto& r : records->as_array()) {
      if (!r.is_object()) continue;
      const auto& o = r.as_object();
      const auto* id = o.if_contains("id");
      if (jsonText(o, "type") != "TXT" || lowered(jsonText(o, "name")) != relativeName ||
          id == nullptr || !id->is_int64()) {
        continue;
      }
      out.push_back({std::to_string(id->as_int64()), unquote(jsonText(o, "data"))});
    }
    // Another page when links.pages.next is given.
    const auto* links = answer->doc.if_contains("links");
    const auto* pages =
        links != nullptr && links->is_object() ? links->as_object().if_contains("pages") : nullptr;
    const bool more =
        pages != nullptr && pages->is_object() && !jsonText(pages->as_object(), "next").empty();
    if (!more) break;
  }
  return out;
}

domain::Status DigitalOceanDnsProvider::present(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  const std::string zone = lowered(relative(record.zone));
  const std::string name = lowered(relative(record.name));
  const auto lock = lockName(record.name);
  auto now = txtRecords(zone, name);
  if (!now) return now.error();
  if (std::any_of(now->begin(), now->end(),
                  [&](const Record& r) { return r.value == record.value; }))
    return {};
  const json::object body{{"type", "TXT"},
                          {"name", inDomain(name, zone)},
                          {"data", record.value},
                          {"ttl", std::max(record.ttl_seconds, 30)}};
  auto answer = call("POST", "/domains/" + zone + "/records", json::serialize(body));
  if (!answer) return answer.error();
  if (answer->status == 201 || answer->status == 200) return {};
  return refusal(answer->status, answer->doc, zone);
}

domain::Status DigitalOceanDnsProvider::cleanup(const ports::TxtRecord& record) {
  if (auto ok = checkRecord(record); !ok) return ok;
  const std::string zone = lowered(relative(record.zone));
  const std::string name = lowered(relative(record.name));
  const auto lock = lockName(record.name);
  auto now = txtRecords(zone, name);
  if (!now) return now.error();
  for (const auto& r : *now) {
    if (r.value != record.value) continue;
    if (!numericId(r.id)) {
      return makeError(ErrorCode::unavailable, "DigitalOcean listed a record without a valid id");
    }
    auto answer = call("DELETE", "/domains/" + zone + "/records/" + r.id);
    if (!answer) return answer.error();
    if (answer->status != 204 && answer->status != 200 && answer->status != 404) {
      return refusal(answer->status, answer->doc, zone);  // 404: gone already
    }
  }
  return {};
}

domain::Status DigitalOceanDnsProvider::waitVisible(const ports::TxtRecord& record,
                                                    domain::Duration timeout) {
  if (auto ok = checkRecord(record); !ok) return ok;
  return checker_->waitVisible(record, timeout);
}

}  // namespace certsteward::adapters::dns
