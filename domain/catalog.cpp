// The kinds and their fields. Labels and help lines are what a form shows; keep them short and
// say what the value does, in the user's terms.
#include <certsteward/domain/catalog.hpp>

#include <algorithm>
#include <array>

namespace certsteward::domain {
namespace {

using T = FieldType;

// The API takes at most 4,000 characters of a secret (16,000 for a credential's: a private key).
FieldSpec secretField(std::string_view label, bool required, std::string_view help,
                      std::size_t maxLength = 4000) {
  FieldSpec f{"secret", label, T::secret, required};
  f.help = help;
  f.place = FieldPlace::body;
  f.max_length = maxLength;
  return f;
}

// The settings every channel kind takes.
void addChannelCommon(std::vector<FieldSpec>& fields) {
  fields.push_back({.name = "ca_bundle",
                    .label = "Trusted CA certificates",
                    .type = T::pem,
                    .help = "PEM certificates to trust instead of the system's, for a receiver "
                            "with a private CA."});
  // One line: a line break in a subject would start a new mail header.
  fields.push_back({.name = "subject_template",
                    .label = "Subject template",
                    .type = T::string,
                    .help = "The subject line, with {{variables}}; empty for the default wording.",
                    .example = "[{{project.name}}] {{event}}: {{certificate.common_name}}",
                    .max_length = 16384});
  fields.push_back({.name = "body_template",
                    .label = "Message template",
                    .type = T::template_text,
                    .help = "The message, with {{variables}}; empty for the default wording."});
}

// Where a file-writing module (ssh, file) puts the certificate.
void addFilePaths(std::vector<FieldSpec>& fields) {
  fields.push_back({.name = "cert_path",
                    .label = "Certificate file",
                    .type = T::path,
                    .help = "Where the leaf certificate goes. Give it, the full chain file, or "
                            "both.",
                    .example = "/etc/ssl/certs/site.pem",
                    .scope = FieldScope::shared});
  fields.push_back({.name = "key_path",
                    .label = "Private key file",
                    .type = T::path,
                    .required = true,
                    .help = "Where the private key goes (always mode 0600).",
                    .example = "/etc/ssl/private/site.key",
                    .scope = FieldScope::shared});
  fields.push_back({.name = "chain_path",
                    .label = "Chain file",
                    .type = T::path,
                    .help = "Where the intermediate certificates go, if the server wants them "
                            "apart.",
                    .example = "/etc/ssl/certs/site-chain.pem",
                    .scope = FieldScope::shared});
  fields.push_back({.name = "fullchain_path",
                    .label = "Full chain file",
                    .type = T::path,
                    .help = "Where the leaf followed by its intermediates goes (nginx's "
                            "ssl_certificate).",
                    .example = "/etc/ssl/certs/site-fullchain.pem",
                    .scope = FieldScope::shared});
  fields.push_back({.name = "file_mode",
                    .label = "Certificate file mode",
                    .type = T::string,
                    .default_value = "0644",
                    .help = "Octal mode of the certificate files; the owner must be able to read "
                            "and write. The key is always 0600.",
                    .example = "0644",
                    .scope = FieldScope::shared,
                    .max_length = 4});
}

// Where a web server's document root is, for HTTP-01 through a webroot (RFC 8555 8.3).
void addWebroot(std::vector<FieldSpec>& fields) {
  fields.push_back({.name = "webroot",
                    .label = "Webroot (HTTP-01)",
                    .type = T::path,
                    .help = "The web server's document root: a certificate whose challenge is "
                            "http-01 through this configuration writes its token files below "
                            "<webroot>/.well-known/acme-challenge/ and removes them afterwards. "
                            "Empty: not used for HTTP-01.",
                    .example = "/var/www/html",
                    .scope = FieldScope::shared});
}

// Which served certificate a delivery is verified against.
void addVerify(std::vector<FieldSpec>& fields) {
  fields.push_back({.name = "verify_address",
                    .label = "Verify at",
                    .type = T::host_port,
                    .help = "After delivery, connect here and wait until the new certificate is "
                            "served. Empty: no check.",
                    .example = "web1.example.com:443",
                    .scope = FieldScope::target});
  fields.push_back({.name = "verify_server_name",
                    .label = "Verify with server name",
                    .type = T::host,
                    .help = "The name (SNI) to ask for when verifying; default the certificate's "
                            "first name.",
                    .example = "www.example.com",
                    .scope = FieldScope::shared});
}

FieldSpec credentialField(std::vector<std::string_view> kinds, std::string_view help) {
  FieldSpec f{"credential_id", "Credential", T::credential, true};
  f.help = help;
  f.place = FieldPlace::body;
  f.scope = FieldScope::target;
  f.credential_kinds = std::move(kinds);
  return f;
}

// How long each provider's records may take to be visible where the CA looks before the attempt
// gives up; left out, the server's dns.propagation_timeout. The example is what suits the
// provider (docs/api.md, DNS credentials, says why).
void addPropagationTimeouts(std::vector<KindSpec>& kinds) {
  for (auto& kind : kinds) {
    std::string_view suggested = "120";
    if (kind.name == "rfc2136" || kind.name == "powerdns") suggested = "60";
    if (kind.name == "exec") suggested = "300";
    FieldSpec f{.name = "propagation_timeout",
                .label = "Propagation timeout (seconds)",
                .type = T::integer,
                .help =
                    "How long a challenge record may take to be visible before the attempt "
                    "gives up. Empty: the server's dns.propagation_timeout (2 minutes unless "
                    "the operator changed it).",
                .example = suggested,
                .min = 10,
                .max = 3600};
    auto& fields = kind.fields;
    const auto secret = std::find_if(fields.begin(), fields.end(),
                                     [](const FieldSpec& x) { return x.name == "secret"; });
    fields.insert(secret, f);
  }
}

std::vector<KindSpec> makeDnsProviders() {
  std::vector<KindSpec> kinds;
  kinds.push_back(
      {"rfc2136",
       "RFC 2136 (TSIG)",
       "Dynamic DNS updates signed with a TSIG key: BIND, Knot, PowerDNS, Windows DNS.",
       {
           {.name = "server",
            .label = "Primary server",
            .type = T::host_port,
            .required = true,
            .help = "The zone's primary name server, host or host:port (port 53 if left out).",
            .example = "ns1.example.com:53",
            .port_optional = true},
           {.name = "key_name",
            .label = "TSIG key name",
            .type = T::string,
            .required = true,
            .help = "The key's name as the server's configuration names it.",
            .example = "certsteward-key",
            .max_length = 253},
           {.name = "algorithm",
            .label = "TSIG algorithm",
            .type = T::enumeration,
            .default_value = "hmac-sha256",
            .help = "The key's algorithm.",
            .values = {"hmac-sha256", "hmac-sha512"}},
           {.name = "authoritative",
            .label = "Check visibility on",
            .type = T::host_port_list,
            .help = "Comma-separated servers to ask whether the record is visible; default the "
                    "primary.",
            .example = "ns1.example.com, ns2.example.com:53",
            .port_optional = true},
           {.name = "check_name_servers",
            .label = "Wait for every name server",
            .type = T::boolean,
            .default_value = "false",
            .help = "Without a list above: also ask every server the zone's NS records name "
                    "(looked up through the server's dns.resolvers), so that secondaries are "
                    "waited for. Leave off where only the primary is reachable."},
           secretField("TSIG secret", true, "The key's secret, base64, as in the key file."),
       }});
  kinds.push_back(
      {"powerdns",
       "PowerDNS API",
       "The PowerDNS Authoritative server's HTTP API (webserver and api enabled).",
       {
           {.name = "api_url",
            .label = "API address",
            .type = T::url,
            .required = true,
            .help = "The server's webserver address, without a path: https://, or http:// to this "
                    "machine.",
            .example = "https://pdns.example.com:8081",
            .loopback_http = true},
           {.name = "server_id",
            .label = "Server id",
            .type = T::string,
            .default_value = "localhost",
            .help = "The API's server id; localhost unless the server says otherwise.",
            .example = "localhost",
            .max_length = 64},
           {.name = "check_servers",
            .label = "Check visibility on",
            .type = T::host_port_list,
            .help = "Comma-separated authoritative servers to ask whether the record is visible. "
                    "Empty: the zone's NS records, looked up through the server's dns.resolvers.",
            .example = "ns1.example.com, ns2.example.com:53",
            .port_optional = true},
           secretField("API key", true, "The server's api-key, sent as X-API-Key."),
       }});
  kinds.push_back(
      {"cloudflare",
       "Cloudflare",
       "Cloudflare's DNS API, with an API token scoped to the zones (Zone: Read, DNS: Edit).",
       {
           {.name = "zone_id",
            .label = "Zone id",
            .type = T::string,
            .help = "The zone's id from its Cloudflare overview page (32 hex digits); empty: the "
                    "zone is found by name.",
            .example = "023e105f4ecef8ad9ca31a8372d0c353",
            .max_length = 32},
           {.name = "check_servers",
            .label = "Check visibility on",
            .type = T::host_port_list,
            .help = "Comma-separated servers to ask whether the record is visible; default the "
                    "zone's Cloudflare name servers.",
            .example = "ada.ns.cloudflare.com, bob.ns.cloudflare.com",
            .port_optional = true},
           {.name = "api_url",
            .label = "API address",
            .type = T::url,
            .default_value = "https://api.cloudflare.com/client/v4",
            .help = "Cloudflare's API; change it only to go through a gateway of your own.",
            .example = "https://api.cloudflare.com/client/v4",
            .loopback_http = true},
           secretField("API token", true,
                       "A token from My Profile, API Tokens, with Zone: Read and DNS: Edit on the "
                       "zone; sent as a bearer token."),
       }});
  kinds.push_back(
      {"route53",
       "Amazon Route 53",
       "Route 53's API with an IAM user's access key (calls signed with AWS Signature Version 4).",
       {
           {.name = "access_key_id",
            .label = "Access key id",
            .type = T::string,
            .required = true,
            .help = "The IAM user's access key id; its policy must allow "
                    "route53:ListHostedZonesByName, GetHostedZone, ListResourceRecordSets, "
                    "ChangeResourceRecordSets and GetChange.",
            .example = "AKIAIOSFODNN7EXAMPLE",
            .max_length = 128},
           {.name = "hosted_zone_id",
            .label = "Hosted zone id",
            .type = T::string,
            .help = "The hosted zone's id (Z...); empty: the zone is found by name.",
            .example = "Z1D633PJN98FT9",
            .max_length = 128},
           {.name = "private_zone",
            .label = "Private zone",
            .type = T::boolean,
            .default_value = "false",
            .help = "When found by name: use the private hosted zone of that name, not the "
                    "public one."},
           {.name = "role_arn",
            .label = "Role to assume",
            .type = T::string,
            .help = "An IAM role's ARN: the key only assumes it (sts:AssumeRole, 15-minute "
                    "credentials) and the role makes the Route 53 calls. Empty: the key itself.",
            .example = "arn:aws:iam::123456789012:role/certsteward-dns",
            .max_length = 2048},
           {.name = "external_id",
            .label = "External id",
            .type = T::string,
            .help = "The external id the role's trust policy asks for, if any.",
            .max_length = 1224},
           {.name = "check_servers",
            .label = "Also check visibility on",
            .type = T::host_port_list,
            .help = "Comma-separated servers to ask as well, once Route 53 reports the change in "
                    "sync on its own servers.",
            .example = "ns-1.awsdns-01.org",
            .port_optional = true},
           {.name = "region",
            .label = "Signing region",
            .type = T::string,
            .default_value = "us-east-1",
            .help = "The region requests are signed for: us-east-1 for Route 53's global API.",
            .example = "us-east-1",
            .max_length = 64},
           {.name = "api_url",
            .label = "API address",
            .type = T::url,
            .default_value = "https://route53.amazonaws.com",
            .help = "Route 53's API; change it only for another partition or a gateway.",
            .example = "https://route53.amazonaws.com",
            .loopback_http = true},
           {.name = "sts_url",
            .label = "STS address",
            .type = T::url,
            .default_value = "https://sts.amazonaws.com",
            .help = "Where a role is assumed; change it only for another partition or a gateway.",
            .example = "https://sts.amazonaws.com",
            .loopback_http = true},
           secretField("Secret access key", true, "The access key's secret."),
       }});
  kinds.push_back(
      {"digitalocean",
       "DigitalOcean",
       "DigitalOcean's DNS (Networking, Domains) with a personal access token.",
       {
           {.name = "check_servers",
            .label = "Check visibility on",
            .type = T::host_port_list,
            .default_value = "ns1.digitalocean.com, ns2.digitalocean.com, ns3.digitalocean.com",
            .help = "Comma-separated servers to ask whether the record is visible; default "
                    "DigitalOcean's name servers.",
            .example = "ns1.digitalocean.com, ns2.digitalocean.com",
            .port_optional = true},
           {.name = "api_url",
            .label = "API address",
            .type = T::url,
            .default_value = "https://api.digitalocean.com/v2",
            .help = "DigitalOcean's API; change it only to go through a gateway of your own.",
            .example = "https://api.digitalocean.com/v2",
            .loopback_http = true},
           secretField("API token", true,
                       "A personal access token with write access to domains (API, Tokens); sent "
                       "as a bearer token."),
       }});
  kinds.push_back(
      {"hetzner",
       "Hetzner DNS",
       "Hetzner DNS through the Hetzner Cloud API, with a Cloud project's API token.",
       {
           {.name = "zone_id",
            .label = "Zone id",
            .type = T::string,
            .help = "The zone's numeric id (Hetzner Console, DNS); empty: the zone is found by "
                    "name.",
            .example = "590000000000001",
            .max_length = 20},
           {.name = "check_servers",
            .label = "Check visibility on",
            .type = T::host_port_list,
            .help = "Comma-separated servers to ask whether the record is visible; default the "
                    "zone's Hetzner name servers.",
            .example = "hydrogen.ns.hetzner.com, oxygen.ns.hetzner.com, helium.ns.hetzner.de",
            .port_optional = true},
           {.name = "api_url",
            .label = "API address",
            .type = T::url,
            .default_value = "https://api.hetzner.cloud/v1",
            .help = "The Hetzner Cloud API; change it only to go through a gateway of your own.",
            .example = "https://api.hetzner.cloud/v1",
            .loopback_http = true},
           secretField("API token", true,
                       "A Read & Write API token of the Cloud project that holds the zone "
                       "(Security, API tokens); sent as a bearer token."),
       }});
  kinds.push_back(
      {"azure",
       "Azure DNS",
       "An Azure DNS zone through Azure Resource Manager, signed in as an app registration "
       "(service principal) with a client secret.",
       {
           {.name = "tenant_id",
            .label = "Tenant id",
            .type = T::string,
            .required = true,
            .help = "The Directory (tenant) ID on the app registration's overview page.",
            .example = "72f988bf-86f1-41af-91ab-2d7cd011db47",
            .max_length = 36},
           {.name = "client_id",
            .label = "Client id",
            .type = T::string,
            .required = true,
            .help = "The app registration's Application (client) ID; the app needs the DNS Zone "
                    "Contributor role on the zone (or its resource group).",
            .example = "0b6f1c4e-1111-4111-8111-0000000c11e7",
            .max_length = 36},
           {.name = "subscription_id",
            .label = "Subscription id",
            .type = T::string,
            .required = true,
            .help = "The subscription that holds the DNS zone.",
            .example = "5b1c0de0-2222-4222-8222-00000000cafe",
            .max_length = 36},
           {.name = "resource_group",
            .label = "Resource group",
            .type = T::string,
            .required = true,
            .help = "The DNS zone's resource group.",
            .example = "rg-dns",
            .max_length = 90},
           {.name = "zone_name",
            .label = "Azure zone name",
            .type = T::string,
            .help = "The Azure DNS zone's name when it differs from the project's zone (the "
                    "records must be in it); empty: the project's zone.",
            .example = "example.com",
            .max_length = 253},
           {.name = "check_servers",
            .label = "Check visibility on",
            .type = T::host_port_list,
            .help = "Comma-separated servers to ask whether the record is visible; default the "
                    "zone's Azure name servers.",
            .example = "ns1-01.azure-dns.com, ns2-01.azure-dns.net",
            .port_optional = true},
           {.name = "authority_url",
            .label = "Sign-in address",
            .type = T::url,
            .default_value = "https://login.microsoftonline.com",
            .help = "Microsoft Entra ID's sign-in address; change it only for a national cloud.",
            .example = "https://login.microsoftonline.com",
            .loopback_http = true},
           {.name = "arm_url",
            .label = "Resource Manager address",
            .type = T::url,
            .default_value = "https://management.azure.com",
            .help = "Azure Resource Manager; change it only for a national cloud or a gateway.",
            .example = "https://management.azure.com",
            .loopback_http = true},
           secretField("Client secret", true,
                       "The Value of one of the app registration's client secrets (Certificates & "
                       "secrets), not its Secret ID."),
       }});
  auto gcloudKey = secretField(
      "Service account key (JSON)", true,
      "The service account's key file as Google gives it (IAM, Service accounts, Keys, Add key, "
      "JSON); its private key signs the token requests and is never sent.",
      16000);
  gcloudKey.multiline = true;
  kinds.push_back(
      {"gcloud",
       "Google Cloud DNS",
       "Cloud DNS with a service account's JSON key (the DNS Administrator role on the project).",
       {
           {.name = "project_id",
            .label = "Project id",
            .type = T::string,
            .help = "The project that holds the zone; empty: the key file's own project.",
            .example = "my-project-123456",
            .max_length = 100},
           {.name = "managed_zone",
            .label = "Managed zone",
            .type = T::string,
            .help = "The zone's name or id as Cloud DNS shows it; empty: the public zone is found "
                    "by its DNS name.",
            .example = "example-com",
            .max_length = 63},
           {.name = "check_servers",
            .label = "Check visibility on",
            .type = T::host_port_list,
            .help = "Comma-separated servers to ask whether the record is visible; default the "
                    "zone's Cloud DNS name servers.",
            .example = "ns-cloud-a1.googledomains.com, ns-cloud-a2.googledomains.com",
            .port_optional = true},
           {.name = "api_url",
            .label = "API address",
            .type = T::url,
            .default_value = "https://dns.googleapis.com/dns/v1",
            .help = "Cloud DNS's API; change it only to go through a gateway of your own.",
            .example = "https://dns.googleapis.com/dns/v1",
            .loopback_http = true},
           gcloudKey,
       }});
  kinds.push_back(
      {"ovh",
       "OVHcloud",
       "The OVHcloud API with an application key, its secret and a consumer key allowed on "
       "/domain/zone.",
       {
           {.name = "application_key",
            .label = "Application key",
            .type = T::string,
            .required = true,
            .help = "The application's key. Its consumer key must allow GET, POST and DELETE "
                    "on /domain/zone/*.",
            .example = "7kbG7Bk7S9Nt7ZSV",
            .max_length = 128},
           {.name = "check_servers",
            .label = "Check visibility on",
            .type = T::host_port_list,
            .help = "Comma-separated servers to ask whether the record is visible; default the "
                    "zone's OVHcloud name servers.",
            .example = "dns110.ovh.net, ns110.ovh.net",
            .port_optional = true},
           {.name = "api_url",
            .label = "API address",
            .type = T::url,
            .default_value = "https://eu.api.ovh.com/1.0",
            .help = "The API of the account's region: https://eu.api.ovh.com/1.0 (Europe), "
                    "https://ca.api.ovh.com/1.0 (Canada), https://api.us.ovhcloud.com/1.0 (US).",
            .example = "https://ca.api.ovh.com/1.0",
            .loopback_http = true},
           secretField("Application secret and consumer key", true,
                       "The application secret and the consumer key joined by ':' "
                       "(<application secret>:<consumer key>); the secret only signs, the "
                       "consumer key is sent."),
       }});
  kinds.push_back(
      {"acmedns",
       "acme-dns",
       "An acme-dns server's account: _acme-challenge names are delegated to it by CNAME. "
       "POST .../dns-credentials/acme-dns-registrations makes the account and its zone in one "
       "step; fill these only for an account made elsewhere.",
       {
           {.name = "api_url",
            .label = "acme-dns server",
            .type = T::url,
            .required = true,
            .help = "The acme-dns server's address, without a path.",
            .example = "https://auth.acme-dns.io",
            .loopback_http = true},
           {.name = "username",
            .label = "Account user",
            .type = T::string,
            .required = true,
            .help = "The account's username, as /register gave it (a UUID).",
            .example = "c36f50e8-4632-44f0-83fe-e070fef28a10",
            .max_length = 36},
           {.name = "subdomain",
            .label = "Account subdomain",
            .type = T::string,
            .required = true,
            .help = "The account's subdomain, as /register gave it (a UUID).",
            .example = "8e5700ea-a4bf-41c7-8a77-e990661dcc6a",
            .max_length = 36},
           {.name = "fulldomain",
            .label = "Account full domain",
            .type = T::string,
            .required = true,
            .help = "The name the account answers for; each _acme-challenge name is a CNAME to "
                    "it, and the project's zone for it uses this credential.",
            .example = "8e5700ea-a4bf-41c7-8a77-e990661dcc6a.auth.acme-dns.io",
            .max_length = 253},
           {.name = "check_servers",
            .label = "Check visibility on",
            .type = T::host_port_list,
            .help = "Comma-separated servers to ask whether the record is visible; default the "
                    "acme-dns server's host on port 53.",
            .example = "auth.acme-dns.io",
            .port_optional = true},
           secretField("Account key", true, "The account's password, as /register gave it."),
       }});
  kinds.push_back(
      {"exec",
       "Exec hook",
       "A command the server's operator allowed (dns.exec_commands) adds and removes the record.",
       {
           {.name = "command",
            .label = "Command",
            .type = T::enumeration,
            .required = true,
            .help = "One of the commands the operator allowed in dns.exec_commands.",
            .values_from = "dns.exec_commands"},
           {.name = "check_servers",
            .label = "Check visibility on",
            .type = T::host_port_list,
            .help = "Comma-separated servers to ask whether the record is visible. Empty: wait "
                    "the propagation delay instead.",
            .example = "ns1.example.com, ns2.example.com:53",
            .port_optional = true},
           {.name = "propagation_delay",
            .label = "Propagation delay (seconds)",
            .type = T::integer,
            .default_value = "0",
            .help = "How long to wait after the command before the CA may look.",
            .example = "30",
            .min = 0,
            .max = 3600},
           secretField("Secret", false,
                       "Handed to the command in the environment as CERTSTEWARD_DNS_SECRET."),
       }});
  addPropagationTimeouts(kinds);
  return kinds;
}

std::vector<KindSpec> makeModules() {
  std::vector<KindSpec> kinds;

  KindSpec ssh{"ssh", "SSH host", "Writes the files over SFTP and runs a reload command.", {}};
  ssh.fields.push_back({.name = "host",
                        .label = "Host",
                        .type = T::host,
                        .required = true,
                        .help = "The host to connect to.",
                        .example = "web1.example.com",
                        .scope = FieldScope::target});
  ssh.fields.push_back({.name = "port",
                        .label = "Port",
                        .type = T::integer,
                        .default_value = "22",
                        .help = "The SSH port.",
                        .example = "22",
                        .scope = FieldScope::target,
                        .min = 1,
                        .max = 65535});
  ssh.fields.push_back({.name = "host_key_sha256",
                        .label = "Host key fingerprint",
                        .type = T::fingerprint,
                        .required = true,
                        .help = "The host key's SHA256 fingerprint (ssh-keygen -lf, or Fetch host "
                                "key). Any other key is refused before anything is sent.",
                        .example = "SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
                        .scope = FieldScope::target});
  addFilePaths(ssh.fields);
  ssh.fields.push_back({.name = "reload_command",
                        .label = "Reload command",
                        .type = T::string,
                        .help = "A shell command run on the host once every file is in place.",
                        .example = "systemctl reload nginx",
                        .scope = FieldScope::shared,
                        .max_length = 1024});
  addWebroot(ssh.fields);
  addVerify(ssh.fields);
  ssh.fields.push_back(credentialField(
      {"ssh_key", "password"}, "How to log in: an SSH key or a password, with its user name."));
  kinds.push_back(std::move(ssh));

  KindSpec file{"file",
                "Files on this server",
                "Writes the files below the server's distribution.file_directories and runs an "
                "allowed command.",
                {}};
  addFilePaths(file.fields);
  file.fields.push_back({.name = "reload_command",
                         .label = "Reload command",
                         .type = T::enumeration,
                         .help = "One of the commands the operator allowed in "
                                 "distribution.exec_commands, run once every file is in place.",
                         .scope = FieldScope::shared,
                         .values_from = "distribution.exec_commands"});
  addWebroot(file.fields);
  addVerify(file.fields);
  kinds.push_back(std::move(file));

  KindSpec haproxy{"haproxy",
                   "HAProxy runtime API",
                   "Replaces the certificate in a running HAProxy without a reload.",
                   {}};
  haproxy.fields.push_back(
      {.name = "runtime_address",
       .label = "Runtime API address",
       .type = T::string,
       .required = true,
       .help = "unix:/path of the admin socket, or host:port on a loopback address (the API has "
               "no TLS and carries the key).",
       .example = "unix:/run/haproxy/admin.sock",
       .scope = FieldScope::target,
       .max_length = 1030});
  haproxy.fields.push_back({.name = "cert_name",
                            .label = "Certificate name",
                            .type = T::string,
                            .required = true,
                            .help = "The certificate as HAProxy's configuration names it.",
                            .example = "/etc/haproxy/certs/site.pem",
                            .scope = FieldScope::shared,
                            .max_length = 255});
  addVerify(haproxy.fields);
  kinds.push_back(std::move(haproxy));

  KindSpec webhook{"webhook",
                   "Webhook",
                   "POSTs the certificate to a URL, signed with the credential's secret.",
                   {}};
  webhook.fields.push_back({.name = "url",
                            .label = "URL",
                            .type = T::url,
                            .required = true,
                            .help = "The receiver (https://).",
                            .example = "https://deploy.example.com/hooks/certificate",
                            .scope = FieldScope::target});
  webhook.fields.push_back({.name = "include_private_key",
                            .label = "Send the private key",
                            .type = T::boolean,
                            .default_value = "false",
                            .help = "Whether the body carries the private key.",
                            .scope = FieldScope::shared});
  webhook.fields.push_back({.name = "ca_pem",
                            .label = "Trusted CA certificates",
                            .type = T::pem,
                            .help = "PEM certificates to trust instead of the system's.",
                            .scope = FieldScope::shared});
  webhook.fields.push_back(credentialField(
      {"token", "password"}, "Its secret signs every request (X-CertSteward-Signature)."));
  kinds.push_back(std::move(webhook));
  return kinds;
}

std::vector<KindSpec> makeChannels() {
  std::vector<KindSpec> kinds;

  KindSpec email{"email", "Email", "Mail through your SMTP server.", {}};
  email.fields = {
      {.name = "host",
       .label = "SMTP server",
       .type = T::host,
       .required = true,
       .help = "The server that accepts the mail.",
       .example = "smtp.example.com"},
      {.name = "port",
       .label = "Port",
       .type = T::integer,
       .help = "587 for starttls, 465 for tls, 25 for none, unless given.",
       .example = "587",
       .min = 1,
       .max = 65535},
      {.name = "tls",
       .label = "Encryption",
       .type = T::enumeration,
       .default_value = "starttls",
       .help = "none only for a server on this machine: the password would travel in clear.",
       .values = {"starttls", "tls", "none"}},
      {.name = "from",
       .label = "From address",
       .type = T::email,
       .required = true,
       .example = "certsteward@example.com"},
      {.name = "from_name",
       .label = "From name",
       .type = T::string,
       .example = "CertSteward",
       .max_length = 200},
      {.name = "to",
       .label = "To",
       .type = T::email_list,
       .required = true,
       .help = "Up to 50 addresses, comma-separated.",
       .example = "ops@example.com, oncall@example.com"},
      {.name = "username",
       .label = "User name",
       .type = T::string,
       .help = "For SMTP authentication, with the password below.",
       .example = "certsteward",
       .max_length = 200},
      secretField("Password", false, "The SMTP password, with the user name."),
  };
  addChannelCommon(email.fields);
  kinds.push_back(std::move(email));

  KindSpec webhook{"webhook", "Webhook", "A JSON POST to your URL, signed if a secret is set.", {}};
  webhook.fields = {
      {.name = "url",
       .label = "URL",
       .type = T::url,
       .required = true,
       .help = "https://, or http:// to this machine.",
       .example = "https://hooks.example.com/certsteward",
       .loopback_http = true},
      {.name = "headers",
       .label = "Extra headers",
       .type = T::headers,
       .help = "'Name: value' lines sent with every request.",
       .example = "X-Team: platform"},
      {.name = "content_type",
       .label = "Content type",
       .type = T::string,
       .default_value = "application/json",
       .help = "The media type of a body template's output.",
       .max_length = 200},
      {.name = "secret_header",
       .label = "Send the secret as header",
       .type = T::string,
       .help = "A header name that carries the secret as is (e.g. Authorization for ntfy), "
               "instead of signing.",
       .example = "Authorization",
       .max_length = 100},
      secretField("Secret", false,
                  "Signs each request (X-CertSteward-Signature), or is the secret header's "
                  "value."),
  };
  addChannelCommon(webhook.fields);
  kinds.push_back(std::move(webhook));

  for (const auto& [name, label, summary, secretLabel] :
       {std::array<std::string_view, 4>{"slack", "Slack",
                                        "A message through a Slack incoming "
                                        "webhook.",
                                        "Incoming-webhook URL"},
        std::array<std::string_view, 4>{"teams", "Microsoft Teams",
                                        "An Adaptive Card through a Teams Workflows webhook.",
                                        "Workflows webhook URL"},
        std::array<std::string_view, 4>{"discord", "Discord",
                                        "A message through a Discord webhook.", "Webhook URL"}}) {
    KindSpec k{name, label, summary, {}};
    k.fields.push_back(secretField(secretLabel, true,
                                   "https://, or http:// to this machine. Kept secret: the URL is "
                                   "the credential."));
    addChannelCommon(k.fields);
    kinds.push_back(std::move(k));
  }

  KindSpec telegram{"telegram", "Telegram", "A message from your bot to a chat or channel.", {}};
  telegram.fields = {
      {.name = "chat_id",
       .label = "Chat",
       .type = T::string,
       .required = true,
       .help = "The chat's number, or @channelname.",
       .example = "-1001234567890",
       .max_length = 100},
      {.name = "api_base_url",
       .label = "API base URL",
       .type = T::url,
       .default_value = "https://api.telegram.org",
       .help = "Only for a Bot API server of your own.",
       .loopback_http = true},
      secretField("Bot token", true, "As BotFather gives it: <digits>:<token>."),
  };
  addChannelCommon(telegram.fields);
  kinds.push_back(std::move(telegram));
  return kinds;
}

std::vector<KindSpec> makeCredentials() {
  const auto username = [](std::string_view help) {
    FieldSpec f{"username", "User name", T::string, false};
    f.help = help;
    f.place = FieldPlace::body;
    f.max_length = 256;
    return f;
  };
  auto key =
      secretField("Private key", true, "The private key, OpenSSH or PEM, unencrypted.", 16000);
  key.multiline = true;
  std::vector<KindSpec> kinds;
  kinds.push_back({"ssh_key",
                   "SSH key",
                   "A private key to log in to SSH targets.",
                   {username("The account to log in as."), key}});
  kinds.push_back(
      {"password",
       "Password",
       "A user name and password: SSH password login, or a webhook's signing secret.",
       {username("The account to log in as (SSH)."), secretField("Password", true, {}, 16000)}});
  kinds.push_back({"token",
                   "Token",
                   "A secret token: a webhook target's signing secret.",
                   {secretField("Token", true, {}, 16000)}});
  return kinds;
}

}  // namespace

const std::vector<KindSpec>& dnsProviderSpecs() {
  static const std::vector<KindSpec> kinds = makeDnsProviders();
  return kinds;
}

const std::vector<KindSpec>& distributionModuleSpecs() {
  static const std::vector<KindSpec> kinds = makeModules();
  return kinds;
}

const std::vector<KindSpec>& notificationChannelSpecs() {
  static const std::vector<KindSpec> kinds = makeChannels();
  return kinds;
}

const std::vector<KindSpec>& credentialKindSpecs() {
  static const std::vector<KindSpec> kinds = makeCredentials();
  return kinds;
}

}  // namespace certsteward::domain
