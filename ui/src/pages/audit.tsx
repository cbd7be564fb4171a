// The audit log (org admins): filters, paging, and verification of the chain (owners).
import { useState } from "preact/hooks";
import { listAuditLogs, verifyAuditLog } from "../api/audit";
import type { AuditVerification } from "../api/types";
import { PagedTable } from "../components/table";
import { ActionButton, Field } from "../components/ui";
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
    () => listAuditLogs({ action, resource_type: resourceType, actor_user_id: actor, page, page_size: 50 }),
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
          <ActionButton label="Verify the chain" run={() => verifyAuditLog({ limit: 10000, since: typeof verification?.next_since === "string" ? verification.next_since : undefined })} onDone={(r) => setVerification(r as AuditVerification)} />
          {verification && (
            <div role="status" class={verification.intact ? "banner ok" : "banner error"}>
              {verification.intact
                ? `No break in the ${verification.verified} entries checked.`
                : `Broken: ${verification.breaks?.length ?? 0} problems in ${verification.verified} entries checked.`}
              {typeof verification.next_since === "string" &&
                ` The check stopped after ${verification.verified} entries; the chain goes on from ${formatTime(verification.next_since)} (one verification per minute: run it again to continue).`}
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
      <PagedTable
        caption="Audit entries"
        list={list}
        rows={(d) => d.logs}
        rowKey={(e) => e.id}
        empty="No entries match."
        onPage={(p) => setQuery({ page: p }, false)}
        columns={[
          { header: "When", cell: (e) => formatTime(e.timestamp) },
          { header: "Actor", cell: (e) => e.actor_username ?? "system" },
          { header: "Action", cell: (e) => <code>{e.action}</code> },
          {
            header: "Resource",
            cell: (e) => (
              <>
                {e.resourceType} <span class="muted small">{e.resource_id}</span>
              </>
            ),
          },
          { header: "Address", cell: (e) => e.ip },
          { header: "Details", cell: (e) => e.details, class: "small" },
        ]}
      />
    </section>
  );
}
