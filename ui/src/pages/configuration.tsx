// A project's configuration: ACME accounts, DNS credentials, zones, credentials, distribution
// modules, notification channels and rules. One list-and-create page per kind, described by a
// table of fields, plus each kind's own checks (validate, key rollover, DNS test, module health,
// channel test and deliveries). Secrets are write-only: the API says whether one is set.
import { useState } from "preact/hooks";
import { rolloverAcmeAccountKey, validateAcmeAccount } from "../api/acme";
import { getCatalog } from "../api/catalog";
import { createConfig, deleteConfig, listConfig, updateConfig, type ConfigKind, type ConfigResource as Resource } from "../api/configuration";
import { checkModuleHealth } from "../api/distributions";
import { testDnsCredential, zoneRateLimits } from "../api/dns";
import { listDeliveries, testChannel } from "../api/notifications";
import type { Delivery, DnsCredentialTest, TargetResult } from "../api/types";
import { TargetResults } from "../components/distribution";
import { ActionButton, Badge, ErrorBanner, Field, Link, Loading, Pager } from "../components/ui";
import { formatTime, humanize } from "../lib/format";
import { useLoad, useSubmit } from "../lib/load";
import { useCan } from "../session";

type FieldKind = "text" | "secret" | "select" | "checkbox" | "settings" | "list" | "numbers" | "targets" | "reference";

interface FieldSpec {
  name: string;
  label: string;
  kind: FieldKind;
  required?: boolean;
  options?: string[];
  reference?: ConfigKind; // the kind of a reference ("dns-credentials")
  hint?: string;
  // A hint listing what the server's catalog offers (GET /catalog), after `hint`.
  catalogHint?: "event_kinds";
  initial?: string | boolean;
}

interface KindSpec {
  path: ConfigKind;
  title: string;
  singular: string;
  fields: FieldSpec[];
  columns: (r: Resource) => [string, string][];
}

const kinds: KindSpec[] = [
  {
    path: "acme-accounts",
    title: "ACME accounts",
    singular: "acme_account",
    fields: [
      { name: "name", label: "Name", kind: "text", required: true },
      { name: "directory_url", label: "Directory URL", kind: "text", required: true, hint: "https://… of the CA's ACME directory" },
      { name: "email", label: "Contact email", kind: "text" },
      { name: "eab_kid", label: "EAB key id", kind: "text", hint: "Only for CAs that require External Account Binding" },
      { name: "eab_hmac_key", label: "EAB HMAC key", kind: "secret" },
    ],
    columns: (r) => [
      ["Directory", String(r.directory_url ?? "")],
      ["Status", String(r.status ?? "")],
      ["Registered", r.is_registered ? "yes" : "no"],
      ["Last validated", formatTime(r.last_validated_at as string | null)],
    ],
  },
  {
    path: "dns-credentials",
    title: "DNS credentials",
    singular: "dns_credential",
    fields: [
      { name: "name", label: "Name", kind: "text", required: true },
      { name: "provider", label: "Provider", kind: "select", options: ["rfc2136", "exec"], required: true },
      { name: "settings", label: "Settings", kind: "settings", hint: "One key=value per line, e.g. server=ns1.example.com:53, key_name=…, algorithm=hmac-sha256" },
      { name: "secret", label: "Secret", kind: "secret", hint: "rfc2136: the TSIG secret (base64)" },
      { name: "active", label: "Active", kind: "checkbox", initial: true },
    ],
    columns: (r) => [
      ["Provider", String(r.provider ?? "")],
      ["Active", r.active ? "yes" : "no"],
      ["Secret", r.secret_configured ? "set" : "not set"],
    ],
  },
  {
    path: "zones",
    title: "Zones",
    singular: "zone",
    fields: [
      { name: "domain", label: "Domain", kind: "text", required: true, hint: "The zone's apex, e.g. example.com" },
      { name: "dns_credential_id", label: "DNS credential", kind: "reference", reference: "dns-credentials", required: true },
    ],
    columns: (r) => [["Domain", String(r.domain ?? "")]],
  },
  {
    path: "credentials",
    title: "Credentials",
    singular: "credential",
    fields: [
      { name: "name", label: "Name", kind: "text", required: true },
      { name: "kind", label: "Kind", kind: "select", options: ["ssh_key", "password", "token"], required: true },
      { name: "username", label: "Username", kind: "text" },
      { name: "secret", label: "Secret", kind: "secret", hint: "The private key (OpenSSH or PEM), password or token" },
    ],
    columns: (r) => [
      ["Kind", String(r.kind ?? "")],
      ["Username", String(r.username ?? "")],
      ["Secret", r.secret_configured ? "set" : "not set"],
    ],
  },
  {
    path: "modules",
    title: "Distribution modules",
    singular: "module",
    fields: [
      { name: "name", label: "Name", kind: "text", required: true },
      { name: "module", label: "Module", kind: "select", options: ["ssh", "file", "haproxy", "webhook"], required: true },
      { name: "settings", label: "Settings for every target", kind: "settings", hint: "key=value per line (docs/api.md lists each module's settings)" },
      { name: "targets", label: "Targets", kind: "targets", hint: 'JSON: [{"name": "web1", "settings": {"host": "…"}, "credential_id": "…"}]' },
      { name: "auto_rollback_on_failure", label: "Roll back succeeded targets when another fails", kind: "checkbox", initial: false },
    ],
    columns: (r) => [
      ["Module", String(r.module ?? "")],
      ["Targets", String(Array.isArray(r.targets) ? r.targets.length : 0)],
      ["Auto rollback", r.auto_rollback_on_failure ? "yes" : "no"],
    ],
  },
  {
    path: "notification-channels",
    title: "Notification channels",
    singular: "notification_channel",
    fields: [
      { name: "name", label: "Name", kind: "text", required: true },
      { name: "kind", label: "Kind", kind: "select", options: ["email", "webhook", "slack", "teams", "discord", "telegram"], required: true },
      { name: "settings", label: "Settings", kind: "settings", hint: "key=value per line, e.g. url=https://… or host=…, to=…" },
      { name: "secret", label: "Secret", kind: "secret", hint: "SMTP password, webhook signing secret, incoming-webhook URL or bot token" },
      { name: "enabled", label: "Enabled", kind: "checkbox", initial: true },
    ],
    columns: (r) => [
      ["Kind", String(r.kind ?? "")],
      ["Enabled", r.enabled ? "yes" : "no"],
      ["Secret", r.secret_configured ? "set" : "not set"],
    ],
  },
  {
    path: "notification-rules",
    title: "Notification rules",
    singular: "notification_rule",
    fields: [
      { name: "name", label: "Name", kind: "text", required: true },
      { name: "events", label: "Events", kind: "list", hint: "Comma-separated", catalogHint: "event_kinds" },
      { name: "channel_ids", label: "Channel ids", kind: "list", hint: "Comma-separated ids of this project's channels" },
      { name: "certificate_pattern", label: "Certificate name pattern", kind: "text", hint: "e.g. *.example.com; empty: every certificate" },
      { name: "thresholds_days", label: "Expiry thresholds (days)", kind: "numbers", hint: "Default 30, 14, 7, 3, 1" },
      { name: "mode", label: "Mode", kind: "select", options: ["each", "digest"] },
      { name: "digest_time", label: "Digest time (UTC)", kind: "text", hint: "HH:MM, for digest mode" },
      { name: "only_on_change", label: "Only on change (failure once, then recovery)", kind: "checkbox", initial: false },
      { name: "enabled", label: "Enabled", kind: "checkbox", initial: true },
    ],
    columns: (r) => [
      ["Events", Array.isArray(r.events) ? r.events.join(", ") : ""],
      ["Mode", String(r.mode ?? "")],
      ["Enabled", r.enabled ? "yes" : "no"],
    ],
  },
];

function parseSettings(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split("\n")) {
    const t = line.trim();
    if (!t) continue;
    const eq = t.indexOf("=");
    if (eq <= 0) throw new Error(`"${t}" is not key=value`);
    out[t.slice(0, eq).trim()] = t.slice(eq + 1).trim();
  }
  return out;
}

// The form's text of a stored value (editing starts from what is stored; secrets start empty).
function textOf(f: FieldSpec, item: Resource): string | boolean {
  const v = item[f.name];
  if (f.kind === "checkbox") return Boolean(v);
  if (f.kind === "secret" || v === undefined || v === null) return "";
  if (f.kind === "settings" && typeof v === "object") {
    return Object.entries(v as Record<string, string>)
      .map(([k, x]) => `${k}=${x}`)
      .join("\n");
  }
  if ((f.kind === "list" || f.kind === "numbers") && Array.isArray(v)) return v.join(", ");
  if (f.kind === "targets") return JSON.stringify(v, null, 2);
  return String(v);
}

// The request body: every filled field on create; on edit only what changed (a secret left
// empty keeps the stored one).
function bodyOf(spec: KindSpec, values: Record<string, string | boolean>, item?: Resource): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of spec.fields) {
    const v = values[f.name];
    if (item && (v === undefined || (f.kind !== "secret" && v === textOf(f, item)))) continue;
    if (f.kind === "checkbox") {
      body[f.name] = Boolean(v ?? f.initial);
      continue;
    }
    const text = typeof v === "string" ? v.trim() : "";
    if (!text) {
      // Emptying a field while editing clears it (a list or settings become empty).
      if (item && f.kind !== "secret" && f.kind !== "select" && f.kind !== "reference") {
        body[f.name] = f.kind === "settings" ? {} : f.kind === "list" || f.kind === "numbers" || f.kind === "targets" ? [] : "";
      }
      continue;
    }
    if (f.kind === "settings") body[f.name] = parseSettings(text);
    else if (f.kind === "list") body[f.name] = text.split(/[\s,]+/).filter(Boolean);
    else if (f.kind === "numbers") body[f.name] = text.split(/[\s,]+/).filter(Boolean).map(Number);
    else if (f.kind === "targets") {
      try {
        body[f.name] = JSON.parse(text);
      } catch {
        throw new Error("Targets must be a JSON array");
      }
    } else body[f.name] = text;
  }
  return body;
}

function Reference({ project, kind, id, value, onChange }: { project: string; kind: ConfigKind; id: string; value: string; onChange: (v: string) => void }) {
  const list = useLoad(() => listConfig(project, kind, { page_size: 100 }), [project, kind]);
  const items = list.data?.items ?? [];
  if (list.error) return <ErrorBanner error={list.error} />;
  return (
    <select id={id} value={value} required onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
      <option value="">Choose…</option>
      {items.map((r) => (
        <option key={r.id} value={r.id}>
          {String(r.name ?? r.id)}
        </option>
      ))}
    </select>
  );
}

function ResourceForm({ project, spec, item, onSaved, onCancel }: { project: string; spec: KindSpec; item?: Resource; onSaved: () => void; onCancel: () => void }) {
  const [values, setValues] = useState<Record<string, string | boolean>>(() =>
    item ? Object.fromEntries(spec.fields.map((f) => [f.name, textOf(f, item)])) : {},
  );
  const set = (name: string, v: string | boolean) => setValues((old) => ({ ...old, [name]: v }));
  const catalog = useLoad(() => (spec.fields.some((f) => f.catalogHint) ? getCatalog() : Promise.resolve(undefined)), [spec.path]);
  const hintOf = (f: FieldSpec) => {
    if (f.catalogHint !== "event_kinds" || !catalog.data) return f.hint;
    return `${f.hint ?? ""}: ${catalog.data.event_kinds.map((k) => k.name).join(", ")}`;
  };
  const { busy, error, submit } = useSubmit(async () => {
    if (item) await updateConfig(project, spec.path, item.id, bodyOf(spec, values, item));
      else await createConfig(project, spec.path, bodyOf(spec, values));
    onSaved();
  });
  return (
    <form class="panel" onSubmit={submit} aria-label={item ? `Edit ${String(item.name ?? item.id)}` : `New ${humanize(spec.singular)}`}>
      <h2>{item ? `Edit ${String(item.name ?? item.domain ?? item.id)}` : `New ${humanize(spec.singular)}`}</h2>
      <ErrorBanner error={error} />
      <div class="grid">
        {spec.fields.map((f) =>
          f.kind === "checkbox" ? (
            <div class="field checkbox" key={f.name}>
              <input id={`${item?.id ?? "new"}-${f.name}`} type="checkbox" checked={Boolean(values[f.name] ?? f.initial)} onChange={(e) => set(f.name, (e.target as HTMLInputElement).checked)} />
              <label for={`${item?.id ?? "new"}-${f.name}`}>{f.label}</label>
            </div>
          ) : (
            <Field key={f.name} label={f.label + (f.required ? " *" : "")} hint={f.kind === "secret" && item ? `${item.secret_configured || item.eab_configured ? "Set" : "Not set"}; leave empty to keep` : hintOf(f)}>
              {(id) => {
                const value = String(values[f.name] ?? "");
                const onInput = (e: Event) => set(f.name, (e.target as HTMLInputElement).value);
                if (f.kind === "select")
                  return (
                    <select id={id} value={value} required={f.required} onChange={onInput}>
                      <option value="">{f.required ? "Choose…" : "Default"}</option>
                      {f.options!.map((o) => (
                        <option key={o} value={o}>
                          {o}
                        </option>
                      ))}
                    </select>
                  );
                if (f.kind === "reference") return <Reference project={project} kind={f.reference!} id={id} value={value} onChange={(v) => set(f.name, v)} />;
                if (f.kind === "settings" || f.kind === "targets" || (f.kind === "secret" && spec.path === "credentials"))
                  return <textarea id={id} rows={4} value={value} onInput={onInput} spellcheck={false} autocomplete="off" />;
                if (f.kind === "secret") return <input id={id} type="password" autocomplete="new-password" value={value} onInput={onInput} />;
                return <input id={id} type="text" autocomplete="off" required={f.required} value={value} onInput={onInput} />;
              }}
            </Field>
          ),
        )}
      </div>
      <div class="buttons">
        <button class="primary" type="submit" disabled={busy}>
          {busy ? "Saving…" : item ? "Save" : "Create"}
        </button>
        <button class="plain" type="button" onClick={onCancel}>
          Cancel
        </button>
      </div>
    </form>
  );
}

// The checks and views each kind adds to its rows.
function Extras({ project, spec, item, admin, operator, onChange }: { project: string; spec: KindSpec; item: Resource; admin: boolean; operator: boolean; onChange: () => void }) {
  const [result, setResult] = useState<unknown>(null);
  const show = (r: unknown) => setResult(r);
  let buttons = null;
  if (spec.path === "acme-accounts" && admin) {
    buttons = (
      <>
        <ActionButton label="Validate" run={() => validateAcmeAccount(project, item.id)} onDone={onChange} />
        <ActionButton label="Roll over key" confirm="Make a new account key and tell the CA?" run={() => rolloverAcmeAccountKey(project, item.id)} onDone={onChange} />
      </>
    );
  } else if (spec.path === "dns-credentials" && admin) {
    buttons = <ActionButton label="Test" run={() => testDnsCredential(project, item.id)} onDone={show} />;
  } else if (spec.path === "zones") {
    buttons = <ActionButton label="CA rate limits" run={() => zoneRateLimits(project, item.id)} onDone={show} />;
  } else if (spec.path === "modules" && operator) {
    buttons = <ActionButton label="Health check" run={() => checkModuleHealth(project, item.id)} onDone={show} />;
  } else if (spec.path === "notification-channels") {
    buttons = (
      <>
        {admin && <ActionButton label="Send test" run={() => testChannel(project, item.id)} onDone={show} />}
        <ActionButton label="Deliveries" run={() => listDeliveries(project, item.id, { page_size: 20 })} onDone={show} />
      </>
    );
  }
  return (
    <>
      {buttons}
      {result !== null && <ResultView result={result} />}
    </>
  );
}

function ResultView({ result }: { result: unknown }) {
  const r = result as Record<string, unknown>;
  if (Array.isArray(r.steps)) {
    const t = r as unknown as DnsCredentialTest;
    return (
      <div role="status" class="result">
        <strong>{t.ok ? "Test passed" : "Test failed"}</strong>
        <ul class="plain-list">
          {t.steps.map((s) => (
            <li key={s.name}>
              {s.ok ? "✓" : "✗"} {s.name}: {s.message}
            </li>
          ))}
        </ul>
      </div>
    );
  }
  if (Array.isArray(r.target_results)) {
    return (
      <div role="status" class="result">
        <TargetResults results={r.target_results as TargetResult[]} caption={r.healthy ? "Every target is healthy" : "Some targets are not healthy"} />
      </div>
    );
  }
  if (Array.isArray(r.deliveries)) {
    const list = r.deliveries as Delivery[];
    return (
      <div role="status" class="result">
        <ul class="plain-list">
          {list.map((d) => (
            <li key={d.id}>
              <Badge value={d.status} /> {formatTime(d.created_at)} · {d.attempts} attempts {d.last_error && <span class="bad-text">{d.last_error}</span>}
            </li>
          ))}
          {list.length === 0 && <li class="muted">No deliveries yet.</li>}
        </ul>
      </div>
    );
  }
  if (typeof r.ok === "boolean") {
    return (
      <div role="status" class="result">
        <strong>{r.ok ? "Sent" : "Not sent"}</strong> {typeof r.error === "string" ? r.error : ""}
      </div>
    );
  }
  return (
    <pre class="result" role="status">
      {JSON.stringify(result, null, 2)}
    </pre>
  );
}

// Page, open forms and results belong to one section of one project.
export function Configuration({ project, kind }: { project: string; kind: string }) {
  return <ConfigurationSection key={`${project}/${kind}`} project={project} kind={kind} />;
}

function ConfigurationSection({ project, kind }: { project: string; kind: string }) {
  const can = useCan();
  const spec = kinds.find((k) => k.path === kind);
  const [page, setPage] = useState(1);
  const [creating, setCreating] = useState(false);
  const list = useLoad(
    () => (spec ? listConfig(project, spec.path, { page, page_size: 25 }) : Promise.resolve(undefined)),
    [project, kind, page],
  );
  const admin = can("manage_project_config", project);
  const [editing, setEditing] = useState<string | null>(null);
  const items = (spec && list.data?.items) ?? [];
  return (
    <section>
      <h1>Configuration</h1>
      <nav class="tabs" aria-label="Configuration">
        {kinds.map((k) => (
          <Link key={k.path} href={`/p/${project}/config/${k.path}`} class={k.path === kind ? "current" : ""}>
            {k.title}
          </Link>
        ))}
      </nav>
      {!spec ? (
        <p>Unknown section.</p>
      ) : (
        <>
          <div class="heading">
            <h2>{spec.title}</h2>
            {admin && !creating && (
              <button type="button" class="primary" onClick={() => setCreating(true)}>
                New {humanize(spec.singular)}
              </button>
            )}
          </div>
          {creating && (
            <ResourceForm
              project={project}
              spec={spec}
              onCancel={() => setCreating(false)}
              onSaved={() => {
                setCreating(false);
                list.reload();
              }}
            />
          )}
          <ErrorBanner error={list.error} />
          {list.loading && !list.data && <Loading />}
          {items.map((item) => (
            <article class="panel" key={item.id} aria-label={String(item.name ?? item.domain ?? item.id)}>
              <div class="heading">
                <h3>{String(item.name ?? item.domain ?? item.id)}</h3>
                <code class="muted small">{item.id}</code>
              </div>
              <dl class="kv compact">
                {spec.columns(item).map(([k, v]) => (
                  <div key={k}>
                    <dt>{k}</dt>
                    <dd>{v}</dd>
                  </div>
                ))}
              </dl>
              {editing === item.id && (
                <ResourceForm
                  project={project}
                  spec={spec}
                  item={item}
                  onCancel={() => setEditing(null)}
                  onSaved={() => {
                    setEditing(null);
                    list.reload();
                  }}
                />
              )}
              <div class="buttons">
                {admin && editing !== item.id && (
                  <button type="button" onClick={() => setEditing(item.id)}>
                    Edit
                  </button>
                )}
                <Extras project={project} spec={spec} item={item} admin={admin} operator={can("write_certificates", project)} onChange={list.reload} />
                {admin && (
                  <ActionButton
                    kind="danger"
                    label="Delete"
                    confirm={`Delete ${String(item.name ?? item.domain ?? item.id)}?`}
                    run={() => deleteConfig(project, spec.path, item.id)}
                    onDone={list.reload}
                  />
                )}
              </div>
            </article>
          ))}
          {list.data && items.length === 0 && <p class="muted">None yet.</p>}
          {list.data && <Pager page={page} pageSize={25} total={list.data.total} onPage={setPage} />}
        </>
      )}
    </section>
  );
}
