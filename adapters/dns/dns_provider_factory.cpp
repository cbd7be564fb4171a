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

// The provider `s` describes, once it passes its own checks (invalid_argument naming the
// credential otherwise).
template <class Provider, class Settings>
domain::Result<ports::DnsProviderPtr> made(const domain::DnsCredential& credential, Settings s) {
  if (auto ok = Provider::validate(s); !ok) {
    return domain::makeError(domain::ErrorCode::invalid_argument,
                             "DNS credential '" + credential.name + "': " + ok.error().message);
  }
  return ports::DnsProviderPtr(std::make_unique<Provider>(std::move(s)));
}

// A URL setting without trailing slashes (the adapters append their paths).
std::string baseUrl(const domain::DnsCredential& c, const char* key, std::string fallback = {}) {
  auto url = setting(c, key, std::move(fallback));
  while (!url.empty() && url.back() == '/')
    url.pop_back();
  return url;
}

}  // namespace

// What every provider takes from the configuration: timeouts, the outbound policy, and the
// servers to check visibility on (`key`) when the credential names them.
template <class Settings>
Settings DefaultDnsProviderFactory::withRuntime(const domain::DnsCredential& credential, Settings s,
                                                const char* checkKey) const {
  s.timeout = timeouts_.request;
  s.poll_interval = timeouts_.poll_interval;
  s.outbound = outbound_;
  if constexpr (requires { s.find_authoritative; }) s.find_authoritative = findAuthoritative_;
  if (auto servers = commaList(setting(credential, checkKey)); !servers.empty()) {
    if constexpr (requires { s.check_servers; }) {
      s.check_servers = std::move(servers);
    } else {
      s.authoritative = std::move(servers);
    }
  }
  return s;
}

domain::Result<ports::DnsProviderPtr> DefaultDnsProviderFactory::make(
    const domain::DnsCredential& credential, const std::string& secret) {
  const auto& c = credential;
  if (c.provider == "rfc2136") {
    auto s = withRuntime(c, Rfc2136Settings{}, "authoritative");
    s.server = setting(c, "server");
    s.key_name = setting(c, "key_name");
    s.algorithm = setting(c, "algorithm", "hmac-sha256");
    s.check_name_servers = setting(c, "check_name_servers", "false") == "true";
    s.secret = secret;
    return made<Rfc2136DnsProvider>(c, std::move(s));
  }
  if (c.provider == "powerdns") {
    auto s = withRuntime(c, PowerDnsSettings{}, "check_servers");
    s.api_url = baseUrl(c, "api_url");
    s.server_id = setting(c, "server_id", "localhost");
    s.api_key = secret;
    return made<PowerDnsProvider>(c, std::move(s));
  }
  if (c.provider == "cloudflare") {
    auto s = withRuntime(c, CloudflareSettings{}, "check_servers");
    s.api_url = baseUrl(c, "api_url", CloudflareSettings::kApiUrl);
    s.api_token = secret;
    s.zone_id = setting(c, "zone_id");
    return made<CloudflareDnsProvider>(c, std::move(s));
  }
  if (c.provider == "digitalocean") {
    auto s = withRuntime(c, DigitalOceanSettings{}, "check_servers");  // default: its own NS
    s.api_url = baseUrl(c, "api_url", DigitalOceanSettings::kApiUrl);
    s.api_token = secret;
    return made<DigitalOceanDnsProvider>(c, std::move(s));
  }
  if (c.provider == "hetzner") {
    auto s = withRuntime(c, HetznerSettings{}, "check_servers");
    s.api_url = baseUrl(c, "api_url", HetznerSettings::kApiUrl);
    s.api_token = secret;
    s.zone_id = setting(c, "zone_id");
    return made<HetznerDnsProvider>(c, std::move(s));
  }
  if (c.provider == "azure") {
    auto s = withRuntime(c, AzureSettings{}, "check_servers");
    s.authority_url = baseUrl(c, "authority_url", AzureSettings::kAuthorityUrl);
    s.arm_url = baseUrl(c, "arm_url", AzureSettings::kArmUrl);
    s.tenant_id = setting(c, "tenant_id");
    s.client_id = setting(c, "client_id");
    s.client_secret = secret;
    s.subscription_id = setting(c, "subscription_id");
    s.resource_group = setting(c, "resource_group");
    s.zone_name = setting(c, "zone_name");
    return made<AzureDnsProvider>(c, std::move(s));
  }
  if (c.provider == "route53") {
    auto s = withRuntime(c, Route53Settings{}, "check_servers");
    s.api_url = baseUrl(c, "api_url", Route53Settings::kApiUrl);
    s.region = setting(c, "region", "us-east-1");
    s.access_key_id = setting(c, "access_key_id");
    s.secret_access_key = secret;
    s.hosted_zone_id = setting(c, "hosted_zone_id");
    s.private_zone = setting(c, "private_zone", "false") == "true";
    s.role_arn = setting(c, "role_arn");
    s.external_id = setting(c, "external_id");
    s.sts_url = baseUrl(c, "sts_url", s.sts_url);
    s.poll_interval = std::max(timeouts_.poll_interval, std::chrono::milliseconds{50});
    return made<Route53DnsProvider>(c, std::move(s));
  }
  if (c.provider == "gcloud") {
    auto s = withRuntime(c, GCloudSettings{}, "check_servers");
    s.api_url = baseUrl(c, "api_url", GCloudSettings::kApiUrl);
    s.service_account_json = secret;  // the key file, as Google gives it
    s.project_id = setting(c, "project_id");
    s.managed_zone = setting(c, "managed_zone");
    // waitVisible polls the change's status on the API at this interval
    s.poll_interval = std::max(timeouts_.poll_interval, std::chrono::milliseconds{50});
    return made<GCloudDnsProvider>(c, std::move(s));
  }
  if (c.provider == "ovh") {
    auto s = withRuntime(c, OvhSettings{}, "check_servers");
    s.api_url = baseUrl(c, "api_url", OvhSettings::kApiUrl);
    s.application_key = setting(c, "application_key");
    auto keys = OvhDnsProvider::splitSecret(secret);  // "<application secret>:<consumer key>"
    if (!keys) {
      return domain::makeError(domain::ErrorCode::invalid_argument,
                               "DNS credential '" + c.name + "': " + keys.error().message);
    }
    s.application_secret = std::move(keys->first);
    s.consumer_key = std::move(keys->second);
    return made<OvhDnsProvider>(c, std::move(s));
  }
  if (c.provider == "acmedns") {
    auto s = acmeDnsSettings(c);
    s.username = setting(c, "username");
    s.subdomain = setting(c, "subdomain");
    s.fulldomain = setting(c, "fulldomain");
    s.password = secret;
    return made<AcmeDnsProvider>(c, std::move(s));
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
  auto s = withRuntime(credential, AcmeDnsSettings{}, "check_servers");
  s.api_url = baseUrl(credential, "api_url");
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
