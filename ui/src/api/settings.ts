// The organisation's settings: the directory (LDAP) and single sign-on (OpenID Connect).
import { call } from "./client";
import type { LdapSettingsInput, LdapTestRequest, OidcSettingsInput } from "./schema.gen";

export function getLdapSettings() {
  return call("GET /settings/ldap");
}

export function putLdapSettings(settings: LdapSettingsInput) {
  return call("PUT /settings/ldap", { body: settings });
}

// Tries the saved settings, and a person's login with them when one is given.
export function testLdapSettings(login: LdapTestRequest) {
  return call("POST /settings/ldap/test", { body: login });
}

export function getOidcSettings() {
  return call("GET /settings/oidc");
}

export function putOidcSettings(settings: OidcSettingsInput) {
  return call("PUT /settings/oidc", { body: settings });
}
