// The pluggable kinds this service knows, each with the fields it takes: the one description the
// validators check and GET /api/v1/catalog serves (docs/api.md, "Catalog").
#pragma once

#include <vector>

#include <certsteward/domain/settings_schema.hpp>

namespace certsteward::domain {

// DNS credentials' providers: "rfc2136", "powerdns", "cloudflare", "route53", "digitalocean",
// "hetzner", "azure", "gcloud", "ovh", "acmedns", "exec".
const std::vector<KindSpec>& dnsProviderSpecs();

// Distribution modules: "ssh", "file", "haproxy", "webhook". Every field has a scope; the
// target's `credential_id` is a body field of type credential.
const std::vector<KindSpec>& distributionModuleSpecs();

// Notification channel kinds: "email", "webhook", "slack", "teams", "discord", "telegram".
const std::vector<KindSpec>& notificationChannelSpecs();

// Credential kinds for distribution targets: "ssh_key", "password", "token".
const std::vector<KindSpec>& credentialKindSpecs();

}  // namespace certsteward::domain
