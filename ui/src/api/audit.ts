// The audit log and the verification of its chain.
import { call, type QueryOf } from "./client";
import type { AuditPage } from "./schema.gen";

// A page of the log, newest first (page mode: the query names a page, not a cursor).
export async function listAuditLogs(query: QueryOf<"GET /audit-logs"> & { limit?: never; cursor?: never }): Promise<AuditPage> {
  return (await call("GET /audit-logs", { query })) as AuditPage;
}

export function verifyAuditLog(query: QueryOf<"POST /audit-logs/verify">) {
  return call("POST /audit-logs/verify", { query });
}
