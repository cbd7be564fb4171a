// The organisation's CA providers (every member reads them; org admins change them), the presets
// a provider can be made from, and a project's issuance defaults and policy.
import { call } from "./client";
import type { CaProviderCreate, CaProviderUpdate, IssuanceSettings } from "./schema.gen";

// Every provider, oldest first (one page: an organisation has a handful).
export function listCaProviders() {
  return call("GET /ca-providers");
}

export function caPresets() {
  return call("GET /ca-providers/presets");
}

// Reads the provider's directory first; one that cannot be read is noted, not refused.
export function createCaProvider(provider: CaProviderCreate) {
  return call("POST /ca-providers", { body: provider });
}

export function updateCaProvider(id: string, change: CaProviderUpdate) {
  return call("PATCH /ca-providers/{provider_id}", { params: { provider_id: id }, body: change });
}

export function deleteCaProvider(id: string) {
  return call("DELETE /ca-providers/{provider_id}", { params: { provider_id: id } });
}

// Reads the directory again: profiles, CAA identities, whether EAB is required.
export function refreshCaProvider(id: string) {
  return call("POST /ca-providers/{provider_id}/refresh", { params: { provider_id: id } });
}

export function getIssuanceSettings(projectId: string) {
  return call("GET /projects/{project_id}/issuance-settings", { params: { project_id: projectId } });
}

// The whole settings: a field left out takes its default.
export function putIssuanceSettings(projectId: string, settings: IssuanceSettings) {
  return call("PUT /projects/{project_id}/issuance-settings", { params: { project_id: projectId }, body: settings });
}
