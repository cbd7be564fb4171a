// The audit log (org admins): filters, paging, and verification of the chain (owners).
import { useState } from "preact/hooks";
import { api } from "../api/client";
import type { AuditEntry, AuditVerification, Paged } from "../api/types";
import { ActionButton, ErrorBanner, Field, Loading, Pager } from "../components/ui";
import { formatTime } from "../lib/format";
import { useLoad } from "../lib/load";
import { setQuery } from "../lib/router";
import { useCan } from "../session";

export function Audit({ query }: { query: URLSearchParams }) {
  const can = useCan();
  const action = query.get("action") ?? "";
  const resourceType = query.get("resource_type") ?? "";
  const actor = query.get("actor_user_id") ?? "";
  const page = Math.max(1, Number(query.get("page") ?? "1") || 1);
  const list = useLoad(
    () => api.get<{ logs: AuditEntry[] } & Paged>("/audit-logs", { action, resource_type: resourceType, actor_user_id: actor, page, page_size: 50 }),
    [action, resourceType, actor, page],
  );
  const [verification, setVerification] = useState<AuditVerification | null>(null);
  const text = (name: string, value: string, label: string) => (
    <Field label={label}>
      {(id) => <input id={id} value={value} onChange={(e) => setQuery({ [name]: (e.target as HTMLInputElement).value, page: undefined })} />}
    </Field>
  );
  return (
    <section>
      <h1>Audit log</h1>
      {can("verify_audit_log") && (
        <div class="panel">
          <ActionButton label="Verify the chain" run={() => api.post<AuditVerification>("/audit-logs/verify", undefined, { limit: 10000 })} onDone={(r) => setVerification(r as AuditVerification)} />
          {verification && (
            <div role="status" class={verification.intact ? "banner ok" : "banner error"}>
              {verification.intact
                ? `Intact: ${verification.verified} entries checked.`
                : `Broken: ${verification.breaks?.length ?? 0} problems in ${verification.verified} entries checked.`}
              {verification.breaks?.map((b) => (
                <div key={b.entry_id} class="small">
                  Entry <code>{b.entry_id || "(tail)"}</code>: {b.reason}
                </div>
              ))}
            </div>
          )}
        </div>
      )}
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        {text("action", action, "Action")}
        {text("resource_type", resourceType, "Resource type")}
        {text("actor_user_id", actor, "Actor user id")}
      </form>
      <ErrorBanner error={list.error} />
      {list.loading && !list.data && <Loading />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table>
              <caption class="sr-only">Audit entries</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Action</th>
                  <th scope="col">Resource</th>
                  <th scope="col">Address</th>
                  <th scope="col">Details</th>
                </tr>
              </thead>
              <tbody>
                {list.data.logs.map((e) => (
                  <tr key={e.id}>
                    <td>{formatTime(e.timestamp)}</td>
                    <td>{e.actor_username ?? "system"}</td>
                    <td>
                      <code>{e.action}</code>
                    </td>
                    <td>
                      {e.resourceType} <span class="muted small">{e.resource_id}</span>
                    </td>
                    <td>{e.ip}</td>
                    <td class="small">{e.details}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager page={page} pageSize={50} total={list.data.total} onPage={(p) => setQuery({ page: p }, false)} />
        </>
      )}
    </section>
  );
}
