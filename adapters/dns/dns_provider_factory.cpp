#include <certsteward/adapters/dns/dns_provider_factory.hpp>

#include <algorithm>
#include <charconv>

#include <certsteward/adapters/common/http_client.hpp>
#include <certsteward/adapters/dns/acmedns_dns_provider.hpp>
#include <certsteward/adapters/dns/azure_dns_provider.hpp>
#include <certsteward/adapters/dns/cloudflare_dns_provider.hpp>
#include <certsteward/adapters/dns/digitalocean_dns_provider.hpp>
#include <certsteward/adapters/dns/exec_dns_provider.hpp>
#include <certsteward/adapters/dns/gcloud_dns_provider.hpp>
#include <certsteward/adapters/dns/hetzner_dns_provider.hpp>
#include <certsteward/adapters/dns/ovh_dns_provider.hpp>
#include <certsteward/adapters/dns/powerdns_dns_provider.hpp>
#include <certsteward/adapters/dns/rfc2136_dns_provider.hpp>
#include <certsteward/adapters/dns/route53_dns_provider.hpp>

namespace certsteward::adapters::dns {
namespace {

std::string setting(const domain::DnsCredential& c, const char* key, std::string fallback = {}) {
  const auto it = c.settings.find(key);
  return it == c.settings.end() || it->second.empty() ? fallback : it->second;
}

std::vector<std::string> commaList(const std::string& text) {
  std::vector<std::string> items;
  for (std::size_t at = 0; at < text.size();) {
    const auto comma = text.find(',', at);
    auto item = text.substr(at, comma - at);
    item.erase(0, item.find_first_not_of(' '));
    item.erase(item.find_last_not_of(' ') + 1);
    if (!item.empty()) items.push_back(item);
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return items;
}

}  // namespace

domain::Result<ports::DnsProviderPtr> DefaultDnsProviderFactory::make(
    const domain::DnsCredential& credential, const std::string& secret) {
  if (credential.provider == "rfc2136") {
    Rfc2136Settings s;
    s.server = setting(credential, "server");
    s.key_name = setting(credential, "key_name");
    s.algorithm = setting(credential, "algorithm", "hmac-sha256");
    s.secret = secret;
    s.timeout = timeouts_.request;
    s.poll_interval = timeouts_.poll_interval;
    s.authoritative = commaList(setting(credential, "authoritative"));
    s.outbound = outbound_;
    if (auto ok = Rfc2136DnsProvider::validate(s); !ok) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + credential.name + "': " + ok.error().message);
    }
    return ports::DnsProviderPtr(std::make_unique<Rfc2136DnsProvider>(std::move(s)));
  }
  if (credential.provider == "powerdns") {
    PowerDnsSettings s;
    s.api_url = setting(credential, "api_url");
    while (!s.api_url.empty() && s.api_url.back() == '/')
      s.api_url.pop_back();
    s.server_id = setting(credential, "server_id", "localhost");
    s.api_key = secret;
    s.check_servers = commaList(setting(credential, "check_servers"));
    s.timeout = timeouts_.request;
    s.poll_interval = timeouts_.poll_interval;
    s.outbound = outbound_;
    if (auto ok = PowerDnsProvider::validate(s); !ok) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + credential.name + "': " + ok.error().message);
    }
    return ports::DnsProviderPtr(std::make_unique<PowerDnsProvider>(std::move(s)));
  }
  if (credential.provider == "cloudflare") {
    CloudflareSettings s;
    s.api_url = setting(credential, "api_url", CloudflareSettings::kApiUrl);
    while (!s.api_url.empty() && s.api_url.back() == '/')
      s.api_url.pop_back();
    s.api_token = secret;
    s.zone_id = setting(credential, "zone_id");
    s.check_servers = commaList(setting(credential, "check_servers"));
    s.timeout = timeouts_.request;
    s.poll_interval = timeouts_.poll_interval;
    s.outbound = outbound_;
    if (auto ok = CloudflareDnsProvider::validate(s); !ok) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + credential.name + "': " + ok.error().message);
    }
    return ports::DnsProviderPtr(std::make_unique<CloudflareDnsProvider>(std::move(s)));
  }
  if (credential.provider == "digitalocean") {
    DigitalOceanSettings s;
    s.api_url = setting(credential, "api_url", DigitalOceanSettings::kApiUrl);
    while (!s.api_url.empty() && s.api_url.back() == '/')
      s.api_url.pop_back();
    s.api_token = secret;
    if (auto servers = commaList(setting(credential, "check_servers")); !servers.empty()) {
      s.check_servers = std::move(servers);
    }
    s.timeout = timeouts_.request;
    s.poll_interval = timeouts_.poll_interval;
    s.outbound = outbound_;
    if (auto ok = DigitalOceanDnsProvider::validate(s); !ok) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + credential.name + "': " + ok.error().message);
    }
    return ports::DnsProviderPtr(std::make_unique<DigitalOceanDnsProvider>(std::move(s)));
  }
  if (credential.provider == "hetzner") {
    HetznerSettings s;
    s.api_url = setting(credential, "api_url", HetznerSettings::kApiUrl);
    while (!s.api_url.empty() && s.api_url.back() == '/')
      s.api_url.pop_back();
    s.api_token = secret;
    s.zone_id = setting(credential, "zone_id");
    s.check_servers = commaList(setting(credential, "check_servers"));
    s.timeout = timeouts_.request;
    s.poll_interval = timeouts_.poll_interval;
    s.outbound = outbound_;
    if (auto ok = HetznerDnsProvider::validate(s); !ok) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + credential.name + "': " + ok.error().message);
    }
    return ports::DnsProviderPtr(std::make_unique<HetznerDnsProvider>(std::move(s)));
  }
  if (credential.provider == "azure") {
    AzureSettings s;
    s.authority_url = setting(credential, "authority_url", AzureSettings::kAuthorityUrl);
    while (!s.authority_url.empty() && s.authority_url.back() == '/')
      s.authority_url.pop_back();
    s.arm_url = setting(credential, "arm_url", AzureSettings::kArmUrl);
    while (!s.arm_url.empty() && s.arm_url.back() == '/')
      s.arm_url.pop_back();
    s.tenant_id = setting(credential, "tenant_id");
    s.client_id = setting(credential, "client_id");
    s.client_secret = secret;
    s.subscription_id = setting(credential, "subscription_id");
    s.resource_group = setting(credential, "resource_group");
    s.zone_name = setting(credential, "zone_name");
    s.check_servers = commaList(setting(credential, "check_servers"));
    s.timeout = timeouts_.request;
    s.poll_interval = timeouts_.poll_interval;
    s.outbound = outbound_;
    if (auto ok = AzureDnsProvider::validate(s); !ok) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + credential.name + "': " + ok.error().message);
    }
    return ports::DnsProviderPtr(std::make_unique<AzureDnsProvider>(std::move(s)));
  }
  if (credential.provider == "route53") {
    Route53Settings s;
    s.api_url = setting(credential, "api_url", Route53Settings::kApiUrl);
    while (!s.api_url.empty() && s.api_url.back() == '/')
      s.api_url.pop_back();
    s.region = setting(credential, "region", "us-east-1");
    s.access_key_id = setting(credential, "access_key_id");
    s.secret_access_key = secret;
    s.hosted_zone_id = setting(credential, "hosted_zone_id");
    s.private_zone = setting(credential, "private_zone", "false") == "true";
    s.role_arn = setting(credential, "role_arn");
    s.external_id = setting(credential, "external_id");
    s.sts_url = setting(credential, "sts_url", s.sts_url);
    while (!s.sts_url.empty() && s.sts_url.back() == '/')
      s.sts_url.pop_back();
    s.check_servers = commaList(setting(credential, "check_servers"));
    s.timeout = timeouts_.request;
    s.poll_interval = std::max(timeouts_.poll_interval, std::chrono::milliseconds{50});
    s.outbound = outbound_;
    if (auto ok = Route53DnsProvider::validate(s); !ok) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + credential.name + "': " + ok.error().message);
    }
    return ports::DnsProviderPtr(std::make_unique<Route53DnsProvider>(std::move(s)));
  }
  if (credential.provider == "gcloud") {
    GCloudSettings s;
    s.api_url = setting(credential, "api_url", GCloudSettings::kApiUrl);
    while (!s.api_url.empty() && s.api_url.back() == '/')
      s.api_url.pop_back();
    s.service_account_json = secret;  // the key file, as Google gives it
    s.project_id = setting(credential, "project_id");
    s.managed_zone = setting(credential, "managed_zone");
    s.check_servers = commaList(setting(credential, "check_servers"));
    s.timeout = timeouts_.request;
    // waitVisible polls the change's status on the API at this interval
    s.poll_interval = std::max(timeouts_.poll_interval, std::chrono::milliseconds{50});
    s.outbound = outbound_;
    if (auto ok = GCloudDnsProvider::validate(s); !ok) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + credential.name + "': " + ok.error().message);
    }
    return ports::DnsProviderPtr(std::make_unique<GCloudDnsProvider>(std::move(s)));
  }
  if (credential.provider == "ovh") {
    OvhSettings s;
    s.api_url = setting(credential, "api_url", OvhSettings::kApiUrl);
    while (!s.api_url.empty() && s.api_url.back() == '/')
      s.api_url.pop_back();
    s.application_key = setting(credential, "application_key");
    auto keys = OvhDnsProvider::splitSecret(secret);  // "<application secret>:<consumer key>"
    if (!keys) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + credential.name + "': " + keys.error().message);
    }
    s.application_secret = std::move(keys->first);
    s.consumer_key = std::move(keys->second);
    s.check_servers = commaList(setting(credential, "check_servers"));
    s.timeout = timeouts_.request;
    s.poll_interval = timeouts_.poll_interval;
    s.outbound = outbound_;
    if (auto ok = OvhDnsProvider::validate(s); !ok) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + credential.name + "': " + ok.error().message);
    }
    return ports::DnsProviderPtr(std::make_unique<OvhDnsProvider>(std::move(s)));
  }
  if (credential.provider == "acmedns") {
    auto s = acmeDnsSettings(credential);
    s.username = setting(credential, "username");
    s.subdomain = setting(credential, "subdomain");
    s.fulldomain = setting(credential, "fulldomain");
    s.password = secret;
    if (auto ok = AcmeDnsProvider::validate(s); !ok) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + credential.name + "': " + ok.error().message);
    }
    return ports::DnsProviderPtr(std::make_unique<AcmeDnsProvider>(std::move(s)));
  }
  if (credential.provider == "exec") {
    const auto bad = [&](const std::string& why) {
      return domain::makeError(domain::ErrorCode::failed_precondition,
                               "DNS credential '" + credential.name + "': " + why);
    };
    ExecSettings s;
    s.command = setting(credential, "command");
    if (s.command.empty()) return bad("the exec provider needs the setting 'command'");
    // Only what the operator listed runs: a project admin must not choose programs to run on
    // the server.
    if (std::find(execCommands_.begin(), execCommands_.end(), s.command) == execCommands_.end()) {
      return bad("the command " + s.command +
                 " is not allowed on this server (the operator lists allowed hooks in "
                 "dns.exec_commands)");
    }
    s.secret = secret;
    s.timeout = timeouts_.exec;
    s.request_timeout = timeouts_.request;
    s.poll_interval = timeouts_.poll_interval;
    s.check_servers = commaList(setting(credential, "check_servers"));
    s.outbound = outbound_;
    const auto delay = setting(credential, "propagation_delay", "0");
    int seconds = 0;
    const auto [end, ec] = std::from_chars(delay.data(), delay.data() + delay.size(), seconds);
    if (ec != std::errc{} || end != delay.data() + delay.size() || seconds < 0 || seconds > 3600) {
      return bad("propagation_delay must be whole seconds between 0 and 3600");
    }
    s.propagation_delay = std::chrono::seconds{seconds};
    return ports::DnsProviderPtr(std::make_unique<ExecDnsProvider>(std::move(s)));
  }
  return domain::makeError(
      domain::ErrorCode::failed_precondition,
      "DNS provider '" + credential.provider +
          "' is not known to this build (rfc2136, powerdns, cloudflare, "
          "route53, digitalocean, hetzner, azure, gcloud, ovh, acmedns, exec)");
}

AcmeDnsSettings DefaultDnsProviderFactory::acmeDnsSettings(
    const domain::DnsCredential& credential) const {
  AcmeDnsSettings s;
  s.api_url = setting(credential, "api_url");
  while (!s.api_url.empty() && s.api_url.back() == '/')
    s.api_url.pop_back();
  s.check_servers = commaList(setting(credential, "check_servers"));
  s.timeout = timeouts_.request;
  s.poll_interval = timeouts_.poll_interval;
  s.outbound = outbound_;
  return s;
}

domain::Result<ports::RegisteredDnsAccount> DefaultDnsProviderFactory::registerAccount(
    const domain::DnsCredential& credential) {
  if (credential.provider != "acmedns")
    return ports::DnsProviderFactory::registerAccount(credential);
  const auto s = acmeDnsSettings(credential);
  if (s.api_url.find("://") == std::string::npos || !common::isAllowedHttpUrl(s.api_url)) {
    return domain::makeError(domain::ErrorCode::invalid_argument,
                             "api_url must be an https URL (http only to a loopback host)");
  }
  auto account = AcmeDnsProvider::registerAccount(s);
  if (!account) return account.error();
  ports::RegisteredDnsAccount out;
  out.settings = credential.settings;
  out.settings["api_url"] = s.api_url;
  out.settings["username"] = account->username;
  out.settings["subdomain"] = account->subdomain;
  out.settings["fulldomain"] = account->fulldomain;
  out.secret = account->password;
  out.served_name = account->fulldomain;
  return out;
}

std::vector<ports::DnsProviderKind> DefaultDnsProviderFactory::kinds() const {
  return {
      {"rfc2136", true, ""},
      {"powerdns", true, ""},
      {"cloudflare", true, ""},
      {"route53", true, ""},
      {"digitalocean", true, ""},
      {"hetzner", true, ""},
      {"azure", true, ""},
      {"gcloud", true, ""},
      {"ovh", true, ""},
      {"acmedns", true, ""},
      {"exec", !execCommands_.empty(),
       execCommands_.empty() ? "no command is allowed: set dns.exec_commands" : ""},
  };
}

}  // namespace certsteward::adapters::dns
