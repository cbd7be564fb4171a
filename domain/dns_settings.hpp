// The settings of a DNS credential, per provider (domain/catalog.hpp describes them): checked
// when the credential is saved, so a broken one is a 422 then, not a failed renewal at 3 a.m.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <certsteward/domain/dns_credential.hpp>
#include <certsteward/domain/result.hpp>

namespace certsteward::domain {

// invalid_argument: an unknown provider is malformed (400, kMalformed); an unknown, missing or
// invalid setting is 422 naming it ("settings.<key>"), and so is a secret the provider needs and
// the credential lacks ("secret"). `secretSet`: whether the credential has a secret after this
// save. `execCommands`: the server's dns.exec_commands, the only commands an active `exec`
// credential may name.
Status checkDnsCredentialSettings(const DnsCredential& credential, bool secretSet,
                                  const std::vector<std::string>& execCommands);

// invalid_argument (422, naming `secret`) when a secret given for the credential cannot work for
// its provider: rfc2136 takes the TSIG secret in base64. Never quotes the secret.
Status checkDnsSecret(const DnsCredential& credential, std::string_view secret);

// invalid_argument (422, naming the setting) when a change moves where the stored secret is sent
// (the provider, an address setting: `api_url`, `server`, ..., or the exec `command`) without
// giving the secret again: whoever may
// edit the credential must not be able to aim its secret at a server of their own.
Status checkDnsCredentialChange(const DnsCredential& before, const DnsCredential& after,
                                bool secretGiven);

}  // namespace certsteward::domain
