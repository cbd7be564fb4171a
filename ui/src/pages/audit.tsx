// The audit log (org admins): filters (resource type and action from the server's catalog, who,
// a date range), paging, the resources by name with a link while they exist, and verification of
// the chain (owners).
import { useState } from "preact/hooks";
import { listAuditLogs, verifyAuditLog } from "../api/audit";
import { getCatalog } from "../api/catalog";
import type { AuditEntry, AuditVerification, Catalog } from "../api/types";
import { listUsers } from "../api/users";
import { PagedTable } from "../components/table";
import { ActionButton, ErrorBanner, Field, Link } from "../components/ui";
import { formatTime } from "../lib/format";
import { useLoad } from "../lib/load";
import { setQuery } from "../lib/router";
import { useCan } from "../session";
import { allPages, type PageQuery } from "../api/all-pages";

// Where the UI shows a resource of this type, for a link; null where it has no page.
function resourcePath(e: AuditEntry): string | null {
  const project = e.project_id;
  const config = (kind: string) => (project ? `/p/${project}/config/${kind}` : null);
  switch (e.resourceType) {
    case "project":
      return `/p/${e.resource_id}`;
    case "user":
      return "/users";
    case "certificate":
      return project ? `/p/${project}/certificates/${e.resource_id}` : null;
    case "acme_account":
      return config("acme-accounts");
    case "dns_credential":
      return config("dns-credentials");
    case "credential":
      return config("credentials");
    case "zone":
      return config("zones");
    case "module_config":
      return config("modules");
    case "notification_channel":
      return config("notification-channels");
    case "notification_rule":
      return config("notification-rules");
    default:
      return null;
  }
}

// A date picked in the person's time zone, as the instant its day starts (plus `days`).
function dayStart(date: string, days = 0): string | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const d = new Date(`${date}T00:00:00`);
  d.setDate(d.getDate() + days);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString();
}

export function Audit({ query }: { query: URLSearchParams }) {
  const can = useCan();
  const action = query.get("action") ?? "";
  const resourceType = query.get("resource_type") ?? "";
  const actor = query.get("actor_user_id") ?? "";
  const from = query.get("from") ?? "";
  const to = query.get("to") ?? "";
  const page = Math.max(1, Number(query.get("page") ?? "1") || 1);
  const list = useLoad(
    () => listAuditLogs({ action, resource_type: resourceType, actor_user_id: actor, since: dayStart(from), until: dayStart(to, 1), page, page_size: 50 }),
    [action, resourceType, actor, from, to, page],
  );
  const users = useLoad(() => allPages((q: PageQuery) => listUsers(q), "users"), []);
  const [verification, setVerification] = useState<AuditVerification | null>(null);
  const catalog = useLoad(() => getCatalog() as Promise<Catalog>, []);
  const actions = catalog.data?.audit_actions ?? [];
  const types = [...new Set(actions.map((a) => a.resource_type))];
  const words = (name: string) => name.replace(/_/g, " ");
  // A value the select does not offer (an old link, an action of another type, or no catalog)
  // is shown as itself, so the select never says "Any" while the list is filtered.
  const extra = (value: string, offered: string[]) => value && !offered.includes(value) && <option value={value}>{value}</option>;
  const offeredTypes = types.filter((t) => !resourceType || t === resourceType);
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
      <ErrorBanner error={catalog.error} />
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="Resource type">
          {(id) => (
            <select id={id} class="fixed" value={resourceType} onChange={(e) => {
              const type = (e.target as HTMLSelectElement).value;
              // An action of another type would match nothing: it goes with the change.
              const keep = !type || actions.some((a) => a.name === action && a.resource_type === type);
              setQuery({ resource_type: type, action: keep ? action : undefined, page: undefined });
            }}>
              <option value="">Any</option>
              {types.map((t) => (
                <option key={t} value={t}>
                  {words(t)}
                </option>
              ))}
              {extra(resourceType, types)}
            </select>
          )}
        </Field>
        <Field label="Action">
          {(id) => (
            <select id={id} class="fixed" value={action} onChange={(e) => setQuery({ action: (e.target as HTMLSelectElement).value, page: undefined })}>
              <option value="">Any</option>
              {offeredTypes.map((t) => (
                  <optgroup key={t} label={words(t)}>
                    {actions
                      .filter((a) => a.resource_type === t)
                      .map((a) => (
                        <option key={a.name} value={a.name} title={a.summary}>
                          {a.name}: {a.summary}
                        </option>
                      ))}
                  </optgroup>
                ))}
              {extra(action, actions.filter((a) => offeredTypes.includes(a.resource_type)).map((a) => a.name))}
            </select>
          )}
        </Field>
        <Field label="Who">
          {(id) => (
            <select id={id} class="fixed" value={actor} onChange={(e) => setQuery({ actor_user_id: (e.target as HTMLSelectElement).value, page: undefined })}>
              <option value="">Anyone</option>
              {users.data?.users.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.username}
                </option>
              ))}
              {actor && !users.data?.users.some((u) => u.id === actor) && <option value={actor}>{actor}</option>}
            </select>
          )}
        </Field>
        <Field label="From">
          {(id) => <input id={id} type="date" value={from} max={to || undefined} onChange={(e) => setQuery({ from: (e.target as HTMLInputElement).value, page: undefined })} />}
        </Field>
        <Field label="To">
          {(id) => <input id={id} type="date" value={to} min={from || undefined} onChange={(e) => setQuery({ to: (e.target as HTMLInputElement).value, page: undefined })} />}
        </Field>
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
            cell: (e) => {
              const path = resourcePath(e);
              return (
                <>
                  <span class="muted small">{e.resourceType.replace(/_/g, " ")}</span>{" "}
                  {e.resource_name ? path ? <Link href={path}>{e.resource_name}</Link> : e.resource_name : <span class="muted small" title="no longer exists, or has no name">{e.resource_id}</span>}
                </>
              );
            },
          },
          { header: "Address", cell: (e) => e.ip },
          { header: "Details", cell: (e) => e.details, class: "small" },
        ]}
      />
    </section>
  );
}
