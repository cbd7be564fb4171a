// DNS credential settings per provider.
#include <certsteward/domain/dns_settings.hpp>

#include <algorithm>

#include <certsteward/domain/catalog.hpp>

namespace certsteward::domain {
namespace {

Error bad(std::string_view setting, const std::string& why) {
  return fieldError("settings." + std::string(setting) + " " + why);
}

// A TSIG key name: a DNS name of letters, digits, '-', '_' and '.'.
bool isKeyName(std::string_view n) {
  return !n.empty() && n.size() <= 253 && n.front() != '.' && n.find("..") == n.npos &&
         std::all_of(n.begin(), n.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_' || c == '.';
         });
}

// 8-4-4-4-12 hexadecimal digits (upper case too when `upper`).
bool isUuid(std::string_view t, bool upper) {
  if (t.size() != 36) return false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    const bool hex =
        (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (upper && c >= 'A' && c <= 'F');
    if (dash ? c != '-' : !hex) return false;
  }
  return true;
}

}  // namespace

Status checkDnsCredentialSettings(const DnsCredential& credential, bool secretSet,
                                  const std::vector<std::string>& execCommands) {
  const auto* spec = findKind(dnsProviderSpecs(), credential.provider);
  if (spec == nullptr) {
    return makeError(ErrorCode::invalid_argument,
                     "unknown provider: '" + credential.provider.substr(0, 40) + "' (" +
                         kindNames(dnsProviderSpecs()) + ")",
                     kMalformed);
  }
  const auto& s = credential.settings;
  if (const auto problem = settingsProblem(*spec, s, true)) {
    return bad(problem->key, explain(*problem, "the " + credential.provider + " provider"));
  }
  const auto* secret = findField(*spec, "secret", FieldPlace::body);
  if (secret != nullptr && secret->required && !secretSet) {
    return fieldError("secret (" + std::string(secret->label) + ") is required");
  }
  if (credential.provider == "rfc2136" && !isKeyName(s.at("key_name"))) {
    return bad("key_name", "must be a DNS name such as certsteward-key");
  }
  if (credential.provider == "powerdns") {
    const auto& url = s.at("api_url");
    const auto host = url.find("://");
    if (host == std::string::npos || url.find_first_of("/?#@", host + 3) != std::string::npos) {
      return bad("api_url",
                 "must be the API's address only, such as https://pdns.example.com:8081 "
                 "(no path, query or user)");
    }
    const auto id = s.count("server_id") != 0U ? s.at("server_id") : std::string();
    if (!id.empty() && (!isKeyName(id) || id.front() == '.')) {
      return bad("server_id", "must be letters, digits, '.', '-' or '_' (usually localhost)");
    }
  }
  if (credential.provider == "hetzner") {
    const auto id = s.count("zone_id") != 0U ? s.at("zone_id") : std::string();
    if (!id.empty() && (id.size() > 20 || !std::all_of(id.begin(), id.end(), [](char c) {
                          return c >= '0' && c <= '9';
                        }))) {
      return bad("zone_id",
                 "must be the zone's numeric id as the Hetzner Console shows it, or empty to "
                 "find the zone by name");
    }
  }
  if (credential.provider == "azure") {
    for (const char* key : {"tenant_id", "client_id", "subscription_id"}) {
      if (!isUuid(s.at(key), true)) {
        return bad(key, "must be a GUID such as 72f988bf-86f1-41af-91ab-2d7cd011db47");
      }
    }
    const auto& group = s.at("resource_group");
    if (group.size() > 90 || group.back() == '.' ||
        !std::all_of(group.begin(), group.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '_' || c == '.' || c == '(' || c == ')';
        })) {
      return bad("resource_group",
                 "must be 1 to 90 letters, digits, '-', '_', '.', '(' or ')', not ending in '.'");
    }
    auto zone = s.count("zone_name") != 0U ? s.at("zone_name") : std::string();
    if (!zone.empty() && zone.back() == '.') zone.pop_back();
    if (!zone.empty() && !isKeyName(zone)) {
      return bad("zone_name", "must be the Azure DNS zone's name, such as example.com");
    }
  }
  if (credential.provider == "gcloud") {
    const auto project = s.count("project_id") != 0U ? s.at("project_id") : std::string();
    if (!project.empty() &&
        (project.size() > 100 || !std::all_of(project.begin(), project.end(), [](char c) {
           return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' ||
                  c == ':';
         }))) {
      return bad("project_id",
                 "must be the project's id (lower-case letters, digits and '-', such as "
                 "my-project-123456), or empty for the key file's project");
    }
    const auto zone = s.count("managed_zone") != 0U ? s.at("managed_zone") : std::string();
    if (!zone.empty() && (zone.size() > 63 || !std::all_of(zone.begin(), zone.end(), [](char c) {
                            return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
                          }))) {
      return bad("managed_zone",
                 "must be the managed zone's name (lower-case letters, digits and '-', such as "
                 "example-com) or its numeric id, or empty to find the zone by its DNS name");
    }
  }
  if (credential.provider == "ovh") {
    const auto& key = s.at("application_key");
    if (key.size() > 128 || !std::all_of(key.begin(), key.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        })) {
      return bad("application_key",
                 "must be the application key OVHcloud gave (letters and digits)");
    }
  }
  if (credential.provider == "acmedns") {
    if (!isUuid(s.at("username"), false))
      return bad("username", "must be the account's user (a UUID)");
    if (!isUuid(s.at("subdomain"), false)) {
      return bad("subdomain", "must be the account's subdomain (a UUID)");
    }
    if (!s.at("fulldomain").starts_with(s.at("subdomain") + ".")) {
      return bad("fulldomain", "must be the account's full domain: <subdomain>.<its domain>");
    }
    auto url = s.at("api_url");
    while (!url.empty() && url.back() == '/')
      url.pop_back();
    const auto host = url.find("://");
    if (host == std::string::npos || url.find_first_of("/?#@", host + 3) != std::string::npos) {
      return bad("api_url",
                 "must be the acme-dns server's address only, such as https://auth.acme-dns.io "
                 "(no path, query or user)");
    }
  }
  if (credential.provider == "cloudflare") {
    const auto id = s.count("zone_id") != 0U ? s.at("zone_id") : std::string();
    const bool hex = id.size() == 32 && std::all_of(id.begin(), id.end(), [](char c) {
                       return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                     });
    if (!id.empty() && !hex) {
      return bad("zone_id",
                 "must be the zone's id as Cloudflare shows it (32 hex digits), or "
                 "empty to find the zone by name");
    }
  }
  if (credential.provider == "route53") {
    const auto upperWord = [](const std::string& w, std::size_t least) {
      return w.size() >= least && w.size() <= 128 && std::all_of(w.begin(), w.end(), [](char c) {
               return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
             });
    };
    if (!upperWord(s.at("access_key_id"), 16)) {
      return bad("access_key_id",
                 "must be an AWS access key id (capitals and digits, such as "
                 "AKIAIOSFODNN7EXAMPLE)");
    }
    const auto zone = s.count("hosted_zone_id") != 0U ? s.at("hosted_zone_id") : std::string();
    if (!zone.empty() && !upperWord(zone, 1)) {
      return bad("hosted_zone_id",
                 "must be the hosted zone's id (capitals and digits, such as "
                 "Z1D633PJN98FT9), or empty to find the zone by name");
    }
    const auto region = s.count("region") != 0U ? s.at("region") : std::string();
    if (!region.empty() && !std::all_of(region.begin(), region.end(), [](char c) {
          return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
        })) {
      return bad("region", "must be an AWS region such as us-east-1");
    }
    for (const char* key : {"api_url", "sts_url"}) {
      const auto url = s.count(key) != 0U ? s.at(key) : std::string();
      const auto host = url.find("://");
      if (!url.empty() &&
          (host == std::string::npos || url.find_first_of("/?#@", host + 3) != std::string::npos)) {
        return bad(key, "must be the service's address only, such as https://" +
                            std::string(key == std::string_view("api_url") ? "route53" : "sts") +
                            ".amazonaws.com (no path, query or user)");
      }
    }
    const auto role = s.count("role_arn") != 0U ? s.at("role_arn") : std::string();
    if (!role.empty() && (!role.starts_with("arn:") || role.find(":role/") == std::string::npos)) {
      return bad("role_arn",
                 "must be an IAM role's ARN, such as "
                 "arn:aws:iam::123456789012:role/certsteward-dns");
    }
  }
  // Every address setting is a base the adapter appends its paths to: no query, fragment or user.
  for (const auto& field : spec->fields) {
    const auto it = s.find(std::string(field.name));
    if (field.type == FieldType::url && it != s.end() &&
        it->second.find_first_of("?#@") != std::string::npos) {
      return bad(field.name, "must be the service's base address (no query or user)");
    }
  }
  // An inactive credential is used by nothing: one whose command the operator has since removed
  // can still be switched off (or renamed) while its owner decides.
  if (credential.provider == "exec" && credential.active &&
      std::find(execCommands.begin(), execCommands.end(), s.at("command")) == execCommands.end()) {
    return bad("command", "must be one of the server's dns.exec_commands" +
                              std::string(execCommands.empty() ? " (none are allowed)" : ""));
  }
  return {};
}

Status checkDnsSecret(const DnsCredential& credential, std::string_view secret) {
  if (credential.provider == "rfc2136") {
    const bool base64 = std::all_of(secret.begin(), secret.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             c == '+' || c == '/' || c == '=';
    });
    if (!base64) return fieldError("secret must be the TSIG secret in base64");
  }
  if (credential.provider == "route53" &&
      secret.find_first_of(" \t\r\n") != std::string_view::npos) {
    return fieldError("secret must be the secret access key alone, without spaces");
  }
  if ((credential.provider == "cloudflare" || credential.provider == "digitalocean" ||
       credential.provider == "hetzner") &&
      (secret.find_first_of(" \t\r\n") != std::string_view::npos || secret.starts_with("Bearer"))) {
    return fieldError("secret must be the API token alone, without spaces or 'Bearer'");
  }
  if (credential.provider == "gcloud") {
    const auto start = secret.find_first_not_of(" \t\r\n");
    if (start == std::string_view::npos || secret[start] != '{' ||
        secret.find("service_account") == std::string_view::npos) {
      return fieldError(
          "secret must be the service account's key file as Google gives it (its "
          "whole JSON text)");
    }
  }
  if (credential.provider == "ovh") {
    const auto colon = secret.find(':');
    const bool plain =
        std::all_of(secret.begin(), secret.end(), [](char c) { return c > 0x20 && c < 0x7f; });
    if (!plain || colon == 0 || colon == std::string_view::npos || colon + 1 == secret.size() ||
        secret.find(':', colon + 1) != std::string_view::npos) {
      return fieldError(
          "secret must be <application secret>:<consumer key> (joined by one ':', "
          "without spaces)");
    }
  }
  if (credential.provider == "azure" && secret.find_first_of(" \t\r\n") != std::string_view::npos) {
    return fieldError("secret must be the client secret's value alone, without spaces");
  }
  return {};
}

Status checkDnsCredentialChange(const DnsCredential& before, const DnsCredential& after,
                                bool secretGiven) {
  if (secretGiven || before.secret_sealed.empty()) return {};
  if (before.provider != after.provider) {
    return fieldError(
        "provider changes where the credential's secret is sent: give the secret "
        "again with it");
  }
  const auto* spec = findKind(dnsProviderSpecs(), after.provider);
  if (spec == nullptr) return {};
  const auto valueOf = [](const DnsCredential& c, std::string_view key) {
    const auto it = c.settings.find(std::string(key));
    return it == c.settings.end() ? std::string() : it->second;
  };
  for (const auto& field : spec->fields) {
    // Where the secret goes: the API addresses, the RFC 2136 primary that takes the TSIG
    // signed updates, and the exec hook that is handed it.
    const bool address =
        field.type == FieldType::url || field.name == "server" || field.name == "command";
    if (!address || field.place != FieldPlace::settings) continue;
    if (valueOf(before, field.name) != valueOf(after, field.name)) {
      return fieldError("settings." + std::string(field.name) +
                        " changes where the credential's secret is sent: give the secret again "
                        "with it");
    }
  }
  return {};
}

}  // namespace certsteward::domain
