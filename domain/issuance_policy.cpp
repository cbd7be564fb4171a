// A project's issuance policy and defaults, and the SC-081 lifetime schedule.
#include <certsteward/domain/issuance_policy.hpp>

#include <algorithm>

#include <certsteward/domain/outbound.hpp>

namespace certsteward::domain {
namespace {

using namespace std::chrono;

Timestamp day(int y, unsigned m, unsigned d) {
  return Timestamp{sys_days{year_month_day{year{y}, month{m}, std::chrono::day{d}}}};
}

std::string joined(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) {
    if (!out.empty()) out += ", ";
    out += w;
  }
  return out;
}

bool coveredBySuffix(std::string_view name, const std::vector<std::string>& suffixes) {
  if (name.starts_with("*.")) name.remove_prefix(2);
  return std::any_of(suffixes.begin(), suffixes.end(), [&](const std::string& s) {
    return name == s ||
           (name.size() > s.size() && name.ends_with(s) && name[name.size() - s.size() - 1] == '.');
  });
}

Error issuanceField(std::string field, std::string message) {
  return Error{
      ErrorCode::invalid_argument, field + " " + message, kInvalidField, {std::move(field)}};
}

}  // namespace

Error policyError(const std::vector<PolicyViolation>& violations) {
  std::string message = "the certificate is outside the project's policy: ";
  std::vector<std::string> references;
  for (std::size_t i = 0; i < violations.size(); ++i) {
    if (i != 0) message += "; ";
    message += violations[i].message;
    references.push_back(violations[i].rule + ": " + violations[i].message);
  }
  return Error{ErrorCode::invalid_argument, std::move(message), kPolicyViolation,
               std::move(references)};
}

bool isIpIdentifier(std::string_view name) {
  const auto address = parseIpAddress(name);
  return address && formatIpAddress(*address) == name;
}

std::vector<PolicyViolation> policyViolations(const Certificate& cert,
                                              const std::vector<Id>& providerIds,
                                              const IssuancePolicy& policy) {
  std::vector<PolicyViolation> out;
  const auto& keys = policy.allowed_key_types;
  if (!keys.empty() && std::find(keys.begin(), keys.end(), cert.key_type) == keys.end()) {
    std::vector<std::string> names;
    for (auto k : keys)
      names.emplace_back(nameOf(k));
    out.push_back({"allowed_key_types", "key type " + std::string(nameOf(cert.key_type)) +
                                            " is not allowed (allowed: " + joined(names) + ")"});
  }
  std::vector<std::string> names = cert.sans;
  if (std::find(names.begin(), names.end(), cert.common_name) == names.end()) {
    names.insert(names.begin(), cert.common_name);
  }
  std::vector<std::string> outside;
  std::vector<std::string> wildcards;
  std::vector<std::string> addresses;
  for (const auto& name : names) {
    if (isIpIdentifier(name)) {
      if (!policy.allow_ip_addresses) addresses.push_back(name);
      continue;
    }
    if (name.starts_with("*.") && !policy.allow_wildcards) wildcards.push_back(name);
    if (!policy.allowed_suffixes.empty() && !coveredBySuffix(name, policy.allowed_suffixes)) {
      outside.push_back(name);
    }
  }
  if (!outside.empty()) {
    out.push_back({"allowed_suffixes", joined(outside) + " not under an allowed suffix (" +
                                           joined(policy.allowed_suffixes) + ")"});
  }
  if (!wildcards.empty()) {
    out.push_back({"allow_wildcards", "wildcard names are not allowed: " + joined(wildcards)});
  }
  if (!addresses.empty()) {
    out.push_back({"allow_ip_addresses", "IP addresses are not allowed: " + joined(addresses)});
  }
  const auto& allowed = policy.allowed_ca_provider_ids;
  if (!allowed.empty()) {
    std::vector<std::string> refused;
    for (const auto& id : providerIds) {
      if (std::find(allowed.begin(), allowed.end(), id) == allowed.end()) {
        refused.push_back(id.empty() ? "an ACME account with no CA provider" : "CA provider " + id);
      }
    }
    if (!refused.empty()) {
      out.push_back({"allowed_ca_provider_ids", "not allowed to issue: " + joined(refused)});
    }
  }
  return out;
}

std::vector<PolicyViolation> lifetimeViolations(Timestamp notBefore, Timestamp notAfter,
                                                const IssuancePolicy& policy) {
  if (policy.max_lifetime_days <= 0) return {};
  if (notAfter - notBefore <= days{policy.max_lifetime_days}) return {};
  const auto days = ceil<std::chrono::days>(notAfter - notBefore).count();  // 90 d 1 s: 91
  return {{"max_lifetime_days", "the issued certificate is valid for " + std::to_string(days) +
                                    " days, more than " +
                                    std::to_string(policy.max_lifetime_days)}};
}

Duration sc081MaxLifetime(Timestamp notBefore) {
  if (notBefore < day(2026, 3, 15)) return days{398};
  if (notBefore < day(2027, 3, 15)) return days{200};
  if (notBefore < day(2029, 3, 15)) return days{100};
  return days{47};
}

bool exceedsSc081(Timestamp notBefore, Timestamp notAfter) {
  return notAfter - notBefore > sc081MaxLifetime(notBefore);
}

Status validateProjectIssuance(const ProjectIssuance& issuance) {
  const auto& p = issuance.policy;
  if (p.allowed_key_types.size() > 5) {
    return issuanceField("policy.allowed_key_types", "names each key type at most once");
  }
  for (std::size_t i = 0; i < p.allowed_key_types.size(); ++i) {
    if (std::count(p.allowed_key_types.begin(), p.allowed_key_types.end(), p.allowed_key_types[i]) >
        1) {
      return issuanceField("policy.allowed_key_types", "names each key type at most once");
    }
  }
  if (p.allowed_suffixes.size() > 100) {
    return issuanceField("policy.allowed_suffixes", "holds at most 100 suffixes");
  }
  for (const auto& s : p.allowed_suffixes) {
    // A suffix may be a top-level label ("internal"): judged as a name under it.
    if (s.starts_with("*.") || !isValidDnsName(s.find('.') == std::string::npos ? "x." + s : s)) {
      return issuanceField("policy.allowed_suffixes",
                           "must hold lower-case DNS names such as example.com; '" +
                               s.substr(0, 64) + "' is not one");
    }
  }
  if (p.max_lifetime_days < 0 || p.max_lifetime_days > 3650) {
    return issuanceField("policy.max_lifetime_days", "must be 0 (no limit) to 3650");
  }
  if (p.allowed_ca_provider_ids.size() > 50) {
    return issuanceField("policy.allowed_ca_provider_ids", "holds at most 50 providers");
  }
  for (const auto& id : p.allowed_ca_provider_ids) {
    if (id.empty() || id.size() > 64) {
      return issuanceField("policy.allowed_ca_provider_ids", "must hold provider ids");
    }
  }
  // The defaults follow a certificate's own rules for the same fields.
  Certificate probe;
  probe.common_name = "example.com";
  probe.acme_account_ids = issuance.defaults.acme_account_ids;
  probe.profile = issuance.defaults.profile;
  probe.preferred_chain = issuance.defaults.preferred_chain;
  if (auto s = validateNewCertificate(probe); !s) {
    auto e = s.error();
    if (e.reason == kInvalidField && !e.references.empty()) {
      e.references[0] = "defaults." + e.references[0];
      e.message = "defaults." + e.message;
    }
    return e;
  }
  return {};
}

}  // namespace certsteward::domain
