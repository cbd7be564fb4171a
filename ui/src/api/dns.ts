// DNS: the test of a DNS credential, and the CA rate limits of a zone.
import { call } from "./client";

// Adds a record through the credential, sees it from outside, and removes it.
export function testDnsCredential(projectId: string, credentialId: string) {
  return call("POST /projects/{project_id}/dns-credentials/{id}/test", { params: { project_id: projectId, id: credentialId } });
}

export function zoneRateLimits(projectId: string, zoneId: string) {
  return call("GET /projects/{project_id}/zones/{id}/rate-limits", { params: { project_id: projectId, id: zoneId } });
}
