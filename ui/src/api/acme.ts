// A project's ACME accounts and their actions at the CA.
import { call, type QueryOf } from "./client";

export function listAcmeAccounts(projectId: string, query: QueryOf<"GET /projects/{project_id}/acme-accounts">) {
  return call("GET /projects/{project_id}/acme-accounts", { params: { project_id: projectId }, query });
}

// Registers the account at its CA, or reads its state there again.
export function validateAcmeAccount(projectId: string, accountId: string) {
  return call("POST /projects/{project_id}/acme-accounts/{id}/validate", { params: { project_id: projectId, id: accountId } });
}

export function rolloverAcmeAccountKey(projectId: string, accountId: string) {
  return call("POST /projects/{project_id}/acme-accounts/{id}/rollover-key", { params: { project_id: projectId, id: accountId } });
}
