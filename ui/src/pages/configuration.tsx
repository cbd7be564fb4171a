// A project's configuration: ACME accounts, DNS credentials, zones, credentials, distribution
// modules, notification channels and rules. One list-and-create page per kind, plus each kind's
// own checks (validate, key rollover, DNS test, module health, channel test and deliveries).
// The fields of a DNS provider, a credential kind, a module (and its targets) and a channel kind
// come from the server's catalog (GET /catalog), the same description the server validates
// with; a 422 is shown beside the field it names. Secrets are write-only: the API says whether
// one is set.
import { Fragment } from "preact";
import { useMemo, useState } from "preact/hooks";
import { rolloverAcmeAccountKey, validateAcmeAccount } from "../api/acme";
import { listCaProviders } from "../api/ca-providers";
import { getCatalog } from "../api/catalog";
import { createConfig, deleteConfig, listConfig, updateConfig, type ConfigKind, type ConfigResource as Resource } from "../api/configuration";
import { checkModuleHealth, readSshHostKey } from "../api/distributions";
import { testDnsCredential, zoneRateLimits } from "../api/dns";
import { listDeliveries, testChannel } from "../api/notifications";
import type { Catalog, CatalogField, CatalogKind, Delivery, DnsCredentialTest, TargetResult, ZoneRateLimits } from "../api/types";
import { CatalogFields, errorField, FieldInput, helpOf, type Values } from "../components/catalog-fields";
import { TargetResults } from "../components/distribution";
import { ActionButton, Badge, ErrorBanner, Field, FormButtons, Link, Loading, Pager } from "../components/ui";
import { formatTime } from "../lib/format";
import { useLoad, useSubmit } from "../lib/load";
import { useCan } from "../session";
import { IssuanceSettingsSection } from "./issuance-settings";
import { allPages, type PageQuery } from "../api/all-pages";

type FieldKind = "text" | "secret" | "select" | "checkbox" | "list" | "numbers" | "reference" | "checklist" | "provider";

// The catalog's families, and the field of a resource that names its kind.
type Family = "dns_providers" | "credential_kinds" | "distribution_modules" | "notification_channels";

interface FieldSpec {
  name: string;
  label: string;
  kind: FieldKind;
  required?: boolean;
  options?: string[];
  reference?: ConfigKind; // the kind of a reference ("dns-credentials")
  hint?: string;
  // A select of the kinds of a catalog family; a checklist of event kinds or of channels.
  family?: Family;
  choices?: "event_kinds" | "channels";
  initial?: string | boolean;
  unlessSet?: string; // shown disabled, and not sent, while this other field has a value
}

interface KindSpec {
  path: ConfigKind;
  title: string;
  singular: string; // "ACME account": what one of them is called
  fields: FieldSpec[];
  // Resources whose kind's fields come from the catalog: the family and the field naming the kind.
  catalog?: { family: Family; by: "provider" | "kind" | "module" };
  columns: (r: Resource, names: Names) => [string, string][];
}

// Names of other resources a row shows instead of their ids.
interface Names {
  channel: (id: string) => string;
  provider: (id: string) => string;
}

const kinds: KindSpec[] = [
  {
    path: "acme-accounts",
    title: "ACME accounts",
    singular: "ACME account",
    fields: [
      { name: "name", label: "Name", kind: "text", required: true },
      { name: "ca_provider_id", label: "CA provider", kind: "provider", hint: "One of the organisation's CA providers" },
      { name: "directory_url", label: "Directory URL", kind: "text", hint: "Or the https://… of an ACME directory: a provider is made for it", unlessSet: "ca_provider_id" },
      { name: "email", label: "Contact email", kind: "text" },
      { name: "eab_kid", label: "EAB key id", kind: "text", hint: "Only for CAs that require External Account Binding" },
      { name: "eab_hmac_key", label: "EAB HMAC key", kind: "secret" },
    ],
    columns: (r, names) => [
      ["CA provider", names.provider(String(r.ca_provider_id ?? ""))],
      ["Directory", String(r.directory_url ?? "")],
      ["Status", String(r.status ?? "")],
      ["Registered", r.is_registered ? "yes" : "no"],
      ["Last validated", formatTime(r.last_validated_at as string | null)],
    ],
  },
  {
    path: "dns-credentials",
    title: "DNS credentials",
    singular: "DNS credential",
    fields: [
      { name: "name", label: "Name", kind: "text", required: true },
      { name: "provider", label: "Provider", kind: "select", family: "dns_providers", required: true },
      { name: "active", label: "Active", kind: "checkbox", initial: true },
    ],
    catalog: { family: "dns_providers", by: "provider" },
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
      { name: "kind", label: "Kind", kind: "select", family: "credential_kinds", required: true },
    ],
    catalog: { family: "credential_kinds", by: "kind" },
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
      { name: "module", label: "Module", kind: "select", family: "distribution_modules", required: true },
      { name: "auto_rollback_on_failure", label: "Roll back succeeded targets when another fails", kind: "checkbox", initial: false },
    ],
    catalog: { family: "distribution_modules", by: "module" },
    columns: (r) => [
      ["Module", String(r.module ?? "")],
      ["Targets", String(Array.isArray(r.targets) ? r.targets.length : 0)],
      ["Auto rollback", r.auto_rollback_on_failure ? "yes" : "no"],
    ],
  },
  {
    path: "notification-channels",
    title: "Notification channels",
    singular: "notification channel",
    fields: [
      { name: "name", label: "Name", kind: "text", required: true },
      { name: "kind", label: "Kind", kind: "select", family: "notification_channels", required: true },
      { name: "enabled", label: "Enabled", kind: "checkbox", initial: true },
    ],
    catalog: { family: "notification_channels", by: "kind" },
    columns: (r) => [
      ["Kind", String(r.kind ?? "")],
      ["Enabled", r.enabled ? "yes" : "no"],
      ["Secret", r.secret_configured ? "set" : "not set"],
    ],
  },
  {
    path: "notification-rules",
    title: "Notification rules",
    singular: "notification rule",
    fields: [
      { name: "name", label: "Name", kind: "text", required: true },
      { name: "events", label: "Events", kind: "checklist", choices: "event_kinds", hint: "The events this rule sends" },
      { name: "channel_ids", label: "Channels", kind: "checklist", choices: "channels" },
      { name: "certificate_pattern", label: "Certificate name pattern", kind: "text", hint: "e.g. *.example.com; empty: every certificate" },
      { name: "thresholds_days", label: "Expiry thresholds (days)", kind: "numbers", hint: "Default 30, 14, 7, 3, 1" },
      { name: "mode", label: "Mode", kind: "select", options: ["each", "digest"] },
      { name: "digest_time", label: "Digest time (UTC)", kind: "text", hint: "HH:MM, for digest mode" },
      { name: "only_on_change", label: "Only on change (failure once, then recovery)", kind: "checkbox", initial: false },
      { name: "enabled", label: "Enabled", kind: "checkbox", initial: true },
    ],
    columns: (r, names) => [
      ["Events", Array.isArray(r.events) ? r.events.join(", ") : ""],
      ["Channels", Array.isArray(r.channel_ids) ? r.channel_ids.map((id) => names.channel(String(id))).join(", ") : ""],
      ["Mode", String(r.mode ?? "")],
      ["Enabled", r.enabled ? "yes" : "no"],
    ],
  },
];

// A module's target as the form edits it: its own settings (target-scoped ones shown; any other
// the API holds is kept as it is) and its credential.
interface TargetRow {
  name: string;
  settings: Values;
  credential_id: string;
}

// The form's text of a stored value (editing starts from what is stored; secrets start empty).
function textOf(f: FieldSpec, item: Resource): string | boolean {
  const v = item[f.name];
  if (f.kind === "checkbox") return Boolean(v);
  if (f.kind === "secret" || v === undefined || v === null) return "";
  if ((f.kind === "list" || f.kind === "numbers" || f.kind === "checklist") && Array.isArray(v)) return v.join(", ");
  return String(v);
}

const listOf = (text: string) => text.split(/[\s,]+/).filter(Boolean);

// The request body of the page's own fields: every filled field on create; on edit only what
// changed.
function bodyOf(spec: KindSpec, values: Record<string, string | boolean>, item?: Resource): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const f of spec.fields) {
    if (f.unlessSet && values[f.unlessSet]) continue;
    const v = values[f.name];
    if (item && (v === undefined || (f.kind !== "secret" && v === textOf(f, item)))) continue;
    if (f.kind === "checkbox") {
      body[f.name] = Boolean(v ?? f.initial);
      continue;
    }
    const text = typeof v === "string" ? v.trim() : "";
    if (!text) {
      // Emptying a field while editing clears it (a list becomes empty).
      if (item && f.kind !== "secret" && f.kind !== "select" && f.kind !== "reference" && f.kind !== "provider") {
        body[f.name] = f.kind === "list" || f.kind === "numbers" || f.kind === "checklist" ? [] : "";
      }
      continue;
    }
    if (f.kind === "list" || f.kind === "checklist") body[f.name] = listOf(text);
    else if (f.kind === "numbers") body[f.name] = listOf(text).map(Number);
    else body[f.name] = text;
  }
  return body;
}

// The filled values of `fields` (in: settings), as the settings map the API takes.
function settingsOf(fields: CatalogField[], values: Values, keep: Values = {}): Record<string, string> {
  const out: Record<string, string> = { ...keep };
  for (const f of fields) {
    if (f.in !== "settings") continue;
    const v = (values[f.name] ?? "").trim();
    if (v) out[f.name] = v;
    else delete out[f.name];
  }
  return out;
}

// The stored settings that no field of `fields` shows (a target's overrides of shared settings).
function hiddenSettings(fields: CatalogField[], stored: Values): Values {
  const shown = new Set(fields.filter((f) => f.in === "settings").map((f) => f.name));
  return Object.fromEntries(Object.entries(stored).filter(([k]) => !shown.has(k)));
}

function Reference({ project, kind, id, value, onChange }: { project: string; kind: ConfigKind; id: string; value: string; onChange: (v: string) => void }) {
  const list = useLoad(() => allPages((q: PageQuery) => listConfig(project, kind, q), "items"), [project, kind]);
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

// The organisation's enabled CA providers (an account's CA).
function ProviderSelect({ id, value, onChange }: { id: string; value: string; onChange: (v: string) => void }) {
  const list = useLoad(() => listCaProviders(), []);
  if (list.error) return <ErrorBanner error={list.error} />;
  const providers = (list.data?.ca_providers ?? []).filter((p) => p.enabled || p.id === value);
  return (
    <select id={id} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
      <option value="">{value ? "Choose…" : "None (give a directory URL)"}</option>
      {providers.map((p) => (
        <option key={p.id} value={p.id}>
          {p.name}
        </option>
      ))}
    </select>
  );
}

// Checkboxes of the catalog's event kinds or of the project's channels (by name).
function Checklist({ project, label, choices, catalog, value, onChange }: { project: string; label: string; choices: "event_kinds" | "channels"; catalog: Catalog | undefined; value: string; onChange: (v: string) => void }) {
  const channels = useLoad(() => (choices === "channels" ? allPages((q: PageQuery) => listConfig(project, "notification-channels", q), "items") : Promise.resolve(undefined)), [project, choices]);
  const options =
    choices === "event_kinds"
      ? (catalog?.event_kinds ?? []).map((k) => ({ value: k.name as string, text: k.name as string, title: k.summary }))
      : (channels.data?.items ?? []).map((c) => ({ value: c.id, text: `${String(c.name)} (${String(c.kind)})`, title: "" }));
  const chosen = new Set(listOf(value));
  const toggle = (v: string, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(v);
    else next.delete(v);
    onChange(options.map((o) => o.value).filter((o) => next.has(o)).concat([...next].filter((x) => !options.some((o) => o.value === x))).join(", "));
  };
  return (
    <fieldset class="checklist">
      <legend>{label}</legend>
      {options.map((o) => (
        <label key={o.value} title={o.title}>
          <input type="checkbox" checked={chosen.has(o.value)} onChange={(e) => toggle(o.value, (e.target as HTMLInputElement).checked)} /> {o.text}
        </label>
      ))}
      {options.length === 0 && <span class="muted">{choices === "channels" ? "No channels yet." : "Loading…"}</span>}
    </fieldset>
  );
}

// The targets of a module: one row each, with the target-scoped fields and the credential.
// "Fetch host key": the server reads the key the row's host offers; the person compares the
// fingerprint and confirms it before it fills the field (nothing is trusted without that).
function HostKeyFetch({ project, host, port, onUse }: { project: string; host: string; port: string; onUse: (fingerprint: string) => void }) {
  const [offered, setOffered] = useState<{ fingerprint: string; key_type: string } | null>(null);
  const { busy, error, submit } = useSubmit(async () => {
    setOffered(null);
    setOffered(await readSshHostKey(project, host.trim(), port.trim() ? Number(port) : undefined));
  });
  return (
    <div class="host-key">
      <button type="button" disabled={busy || !host.trim()} onClick={() => void submit()}>
        {busy ? "Fetching…" : "Fetch host key"}
      </button>
      <ErrorBanner error={error} />
      {offered && (
        <div role="status" class="result">
          <span>
            {host} offers {offered.key_type} <code>{offered.fingerprint}</code>. Compare it with the host's own (ssh-keygen -lf) before you trust it.
          </span>{" "}
          <button
            type="button"
            onClick={() => {
              onUse(offered.fingerprint);
              setOffered(null);
            }}
          >
            Trust this key
          </button>
        </div>
      )}
    </div>
  );
}

function TargetsTable(props: {
  project: string;
  kind: CatalogKind;
  rows: TargetRow[];
  setRows: (rows: TargetRow[]) => void;
  credentials: { id: string; name: string; kind: string }[];
  errorField: string | undefined;
  error: string | undefined;
  idPrefix: string;
}) {
  const fields = props.kind.fields.filter((f) => f.scope === "target");
  const change = (i: number, patch: Partial<TargetRow>) => props.setRows(props.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)));
  const pathOf = (i: number, f: CatalogField) => (f.in === "settings" ? `targets[${i}].settings.${f.name}` : `targets[${i}].${f.name}`);
  return (
    <div class="targets">
      <h3>Targets</h3>
      <div class="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Name *</th>
              {fields.map((f) => (
                <th scope="col" key={f.name} title={helpOf(f)}>
                  {f.label + (f.required ? " *" : "")}
                </th>
              ))}
              <th scope="col">
                <span class="visually-hidden">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row, i) => {
              const n = i + 1;
              const failed = props.errorField?.startsWith(`targets[${i}].`) ? props.errorField : undefined;
              const overrides = Object.entries(hiddenSettings(fields, row.settings));
              return (
                <Fragment key={i}>
                  <tr class={failed ? "invalid" : ""}>
                    <td>
                      <input aria-label={`Name, target ${n}`} type="text" required value={row.name} onInput={(e) => change(i, { name: (e.target as HTMLInputElement).value })} />
                    </td>
                    {fields.map((f) => (
                      <td key={f.name}>
                        <FieldInput
                          field={f}
                          id={`${props.idPrefix}-t${i}-${f.name}`}
                          label={`${f.label}, target ${n}`}
                          value={f.in === "settings" ? (row.settings[f.name] ?? "") : row.credential_id}
                          onChange={(v) => (f.in === "settings" ? change(i, { settings: { ...row.settings, [f.name]: v } }) : change(i, { credential_id: v }))}
                          credentials={props.credentials}
                        />
                        {f.type === "fingerprint" && (
                          <HostKeyFetch project={props.project} host={row.settings.host ?? ""} port={row.settings.port ?? ""} onUse={(fp) => change(i, { settings: { ...row.settings, [f.name]: fp } })} />
                        )}
                        {failed === pathOf(i, f) && (
                          <small class="bad-text" role="alert">
                            {props.error}
                          </small>
                        )}
                      </td>
                    ))}
                    <td>
                      <button type="button" class="plain" aria-label={`Remove target ${n}`} onClick={() => props.setRows(props.rows.filter((_, j) => j !== i))}>
                        Remove
                      </button>
                    </td>
                  </tr>
                  {overrides.length > 0 && (
                    // The target's own values of shared settings (set through the API): kept as
                    // they are when the form saves, and said here so nobody is surprised by them.
                    <tr>
                      <td colSpan={fields.length + 2} class="small muted">
                        Target {n} sets its own{" "}
                        {overrides.map(([k, v], j) => (
                          <Fragment key={k}>
                            {j > 0 && ", "}
                            <code>{`${props.kind.fields.find((f) => f.name === k)?.label ?? k} = ${v}`}</code>
                          </Fragment>
                        ))}{" "}
                        instead of the module's (kept when you save; change it through the API).
                      </td>
                    </tr>
                  )}
                  {failed && !fields.some((f) => pathOf(i, f) === failed) && (
                    <tr>
                      <td colSpan={fields.length + 2}>
                        <small class="bad-text" role="alert">
                          {props.error}
                        </small>
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
      <button type="button" onClick={() => props.setRows([...props.rows, { name: "", settings: {}, credential_id: "" }])}>
        Add target
      </button>
    </div>
  );
}

function ResourceForm({ project, spec, item, catalog, onSaved, onCancel }: { project: string; spec: KindSpec; item?: Resource; catalog: Catalog | undefined; onSaved: () => void; onCancel: () => void }) {
  const [values, setValues] = useState<Record<string, string | boolean>>(() =>
    item ? Object.fromEntries(spec.fields.map((f) => [f.name, textOf(f, item)])) : {},
  );
  const set = (name: string, v: string | boolean) => setValues((old) => ({ ...old, [name]: v }));
  // The catalog's part: the kind's settings, its body fields (secret, username) and targets.
  const [settings, setSettings] = useState<Values>(() => ({ ...((item?.settings as Values | undefined) ?? {}) }));
  const [bodyValues, setBodyValues] = useState<Values>((): Values => (item && typeof item.username === "string" ? { username: item.username } : {}));
  const [targets, setTargets] = useState<TargetRow[]>(() =>
    ((item?.targets as { name: string; settings?: Values; credential_id?: string }[] | undefined) ?? []).map((t) => ({ name: t.name, settings: { ...(t.settings ?? {}) }, credential_id: t.credential_id ?? "" })),
  );
  const kinds: CatalogKind[] = spec.catalog && catalog ? (catalog[spec.catalog.family] as CatalogKind[]) : [];
  const kindName = spec.catalog ? String(values[spec.catalog.by] ?? "") : "";
  const kind = kinds.find((k) => k.name === kindName);
  const isModule = spec.catalog?.family === "distribution_modules";
  const moduleFields = kind ? kind.fields.filter((f) => !isModule || f.scope === "shared") : [];
  const needsCredentials = kind?.fields.some((f) => f.type === "credential") ?? false;
  const credentials = useLoad(() => (needsCredentials ? allPages((q: PageQuery) => listConfig(project, "credentials", q), "items") : Promise.resolve(undefined)), [project, needsCredentials]);
  const credentialList = useMemo(() => (credentials.data?.items ?? []).map((c) => ({ id: c.id, name: String(c.name), kind: String(c.kind) })), [credentials.data]);

  const { busy, error, submit } = useSubmit(async () => {
    const body = bodyOf(spec, values, item);
    if (spec.catalog && kind) {
      const stored = (item?.settings as Values | undefined) ?? {};
      // What the form does not show (a module-level value of a target-scoped field, set through
      // the API) is kept as it is.
      const next = settingsOf(moduleFields, settings, hiddenSettings(moduleFields, stored));
      if (!item || JSON.stringify(next) !== JSON.stringify(stored)) body.settings = next;
      for (const f of kind.fields.filter((x) => x.in === "body" && x.type !== "credential")) {
        const v = (bodyValues[f.name] ?? "").trim();
        if (f.type === "secret") {
          if (v) body[f.name] = v;
        } else if (!item ? v : v !== String(item[f.name] ?? "")) body[f.name] = v;
      }
      if (isModule) {
        const targetFields = kind.fields.filter((f) => f.scope === "target");
        body.targets = targets.map((row) => {
          const t: Record<string, unknown> = { name: row.name.trim(), settings: settingsOf(targetFields, row.settings, hiddenSettings(targetFields, row.settings)) };
          if (row.credential_id) t.credential_id = row.credential_id;
          return t;
        });
      }
    }
    if (item) await updateConfig(project, spec.path, item.id, body);
    else await createConfig(project, spec.path, body);
    onSaved();
  });
  const failedField = errorField(error);
  const messageOf = () => (error instanceof Error ? error.message : undefined);
  // Where each rendered field is named by the server; an error naming none is shown on top.
  const rendered = new Set<string>([
    ...spec.fields.map((f) => f.name),
    ...moduleFields.map((f) => (f.in === "settings" ? `settings.${f.name}` : f.name)),
    ...targets.flatMap((_, i) => [`targets[${i}].name`, ...(kind?.fields ?? []).filter((f) => f.scope === "target").map((f) => (f.in === "settings" ? `targets[${i}].settings.${f.name}` : `targets[${i}].${f.name}`))]),
  ]);
  const idBase = item?.id ?? "new";
  return (
    <form class="panel" onSubmit={submit} aria-label={item ? `Edit ${String(item.name ?? item.id)}` : `New ${spec.singular}`}>
      <h2>{item ? `Edit ${String(item.name ?? item.domain ?? item.id)}` : `New ${spec.singular}`}</h2>
      {(!failedField || !rendered.has(failedField)) && <ErrorBanner error={error} />}
      <div class="grid">
        {spec.fields.map((f) => {
          const inline = failedField === f.name ? <small class="bad-text" role="alert">{messageOf()}</small> : null;
          if (f.kind === "checkbox")
            return (
              <div class="field checkbox" key={f.name}>
                <input id={`${idBase}-${f.name}`} type="checkbox" checked={Boolean(values[f.name] ?? f.initial)} onChange={(e) => set(f.name, (e.target as HTMLInputElement).checked)} />
                <label for={`${idBase}-${f.name}`}>{f.label}</label>
              </div>
            );
          if (f.kind === "checklist")
            return (
              <div class="field wide" key={f.name}>
                <Checklist project={project} label={f.label + (f.required ? " *" : "")} choices={f.choices!} catalog={catalog} value={String(values[f.name] ?? "")} onChange={(v) => set(f.name, v)} />
                {inline}
                {f.hint && <small class="muted">{f.hint}</small>}
              </div>
            );
          return (
            <Field key={f.name} label={f.label + (f.required ? " *" : "")} hint={f.kind === "secret" && item ? `${item.secret_configured || item.eab_configured ? "Set" : "Not set"}; leave empty to keep` : f.family ? kind?.summary : f.hint}>
              {(id) => {
                const value = String(values[f.name] ?? "");
                const onInput = (e: Event) => set(f.name, (e.target as HTMLInputElement).value);
                let input;
                if (f.kind === "select") {
                  const options = f.family ? ((catalog?.[f.family] ?? []) as CatalogKind[]).filter((k) => k.available || k.name === value).map((k) => ({ value: k.name, text: k.label })) : (f.options ?? []).map((o) => ({ value: o, text: o }));
                  input = (
                    <select id={id} value={value} required={f.required} onChange={onInput}>
                      <option value="">{f.required ? "Choose…" : "Default"}</option>
                      {options.map((o) => (
                        <option key={o.value} value={o.value}>
                          {o.text}
                        </option>
                      ))}
                    </select>
                  );
                } else if (f.kind === "reference") input = <Reference project={project} kind={f.reference!} id={id} value={value} onChange={(v) => set(f.name, v)} />;
                else if (f.kind === "provider") input = <ProviderSelect id={id} value={value} onChange={(v) => set(f.name, v)} />;
                else if (f.kind === "secret") input = <input id={id} type="password" autocomplete="new-password" value={value} onInput={onInput} />;
                else input = <input id={id} type="text" autocomplete="off" required={f.required} disabled={!!(f.unlessSet && values[f.unlessSet])} value={value} onInput={onInput} />;
                return (
                  <>
                    {input}
                    {inline}
                  </>
                );
              }}
            </Field>
          );
        })}
      </div>
      {kind && moduleFields.length > 0 && (
        <fieldset class="kind-fields">
          <legend>{isModule ? `${kind.label}: settings for every target` : `${kind.label} settings`}</legend>
          <div class="grid">
            <CatalogFields
              fields={moduleFields}
              values={{ ...settings, ...bodyValues }}
              onChange={(name, v) => {
                const f = moduleFields.find((x) => x.name === name);
                if (f?.in === "body") setBodyValues((old) => ({ ...old, [name]: v }));
                else setSettings((old) => ({ ...old, [name]: v }));
              }}
              idPrefix={`${idBase}-${kind.name}`}
              fieldPath={(f) => (f.in === "settings" ? `settings.${f.name}` : f.name)}
              errorField={failedField}
              error={messageOf()}
              credentials={credentialList}
              secretConfigured={Boolean(item?.secret_configured)}
            />
          </div>
        </fieldset>
      )}
      {kind && isModule && <TargetsTable project={project} kind={kind} rows={targets} setRows={setTargets} credentials={credentialList} errorField={failedField} error={messageOf()} idPrefix={idBase} />}
      {spec.catalog && !catalog && <Loading what="Loading the fields" />}
      <FormButtons busy={busy} label={item ? "Save" : "Create"} onCancel={onCancel} />
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

// "12 of 50 this week (38 left)", or "12 (no published limit)".
function usage(u: { used: number; limit: number | null; remaining: number | null; window_seconds: number }): string {
  const days = u.window_seconds / 86400;
  const window = days >= 1 ? `${Number.isInteger(days) ? days : days.toFixed(1)} day${days === 1 ? "" : "s"}` : `${Math.round(u.window_seconds / 3600)} h`;
  if (u.limit === null) return `${u.used} in ${window} (no known limit)`;
  return `${u.used} of ${u.limit} in ${window} (${u.remaining ?? 0} left)`;
}

// A zone's standing at each CA it was ordered from: what counts against the CA's limits.
function RateLimitsView({ report }: { report: ZoneRateLimits }) {
  return (
    <div role="status" class="result">
      <div class="table-wrap">
        <table>
          <caption>
            CA rate limits for {report.registered_domain} (as of {formatTime(report.at)})
          </caption>
          <thead>
            <tr>
              <th scope="col">CA directory</th>
              <th scope="col">Certificates</th>
              <th scope="col">Orders</th>
              <th scope="col">Failed validations</th>
              <th scope="col">Last rate limited</th>
            </tr>
          </thead>
          <tbody>
            {report.directories.map((d) => (
              <tr key={d.directory_url}>
                <td>
                  <code class="small">{d.directory_url}</code>
                  <div class="muted small">limits: {d.limits_source}</div>
                </td>
                <td>{usage(d.certificates)}</td>
                <td>{usage(d.orders)}</td>
                <td>{usage(d.failed_validations)}</td>
                <td>{d.last_rate_limited ? `${formatTime(d.last_rate_limited.at)}${d.last_rate_limited.active ? " (still in force)" : ""}` : "never"}</td>
              </tr>
            ))}
            {report.directories.length === 0 && (
              <tr>
                <td colSpan={5} class="muted">
                  No order for this zone yet.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </div>
  );
}

function ResultView({ result }: { result: unknown }) {
  const r = result as Record<string, unknown>;
  if (Array.isArray(r.directories) && typeof r.registered_domain === "string") return <RateLimitsView report={r as unknown as ZoneRateLimits} />;
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
              <Badge value={d.status} /> {formatTime(d.created_at)} · {d.attempts === 1 ? "1 attempt" : `${d.attempts} attempts`} {d.last_error && <span class="bad-text">{d.last_error}</span>}
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
  const catalog = useLoad(() => (spec && (spec.catalog || spec.fields.some((f) => f.choices === "event_kinds")) ? getCatalog() : Promise.resolve(undefined)), [kind]);
  // Rules name their channels: one read of the project's channels, not one per row.
  const channels = useLoad(() => (kind === "notification-rules" ? allPages((q: PageQuery) => listConfig(project, "notification-channels", q), "items") : Promise.resolve(undefined)), [project, kind]);
  const providers = useLoad(() => (kind === "acme-accounts" ? listCaProviders() : Promise.resolve(undefined)), [kind]);
  const names: Names = {
    channel: (id) => String(channels.data?.items.find((c) => c.id === id)?.name ?? (channels.data ? "(deleted channel)" : id)),
    provider: (id) => providers.data?.ca_providers.find((p) => p.id === id)?.name ?? id,
  };
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
        <Link href={`/p/${project}/config/issuance`} class={kind === "issuance" ? "current" : ""}>
          Issuance policy
        </Link>
      </nav>
      {kind === "issuance" ? (
        <IssuanceSettingsSection project={project} admin={admin} />
      ) : !spec ? (
        <p>Unknown section.</p>
      ) : (
        <>
          <div class="heading">
            <h2>{spec.title}</h2>
            {admin && !creating && (
              <button type="button" class="primary" onClick={() => setCreating(true)}>
                New {spec.singular}
              </button>
            )}
          </div>
          {creating && (
            <ResourceForm
              project={project}
              spec={spec}
              catalog={catalog.data}
              onCancel={() => setCreating(false)}
              onSaved={() => {
                setCreating(false);
                list.reload();
              }}
            />
          )}
          <ErrorBanner error={list.error} />
          <ErrorBanner error={catalog.error} />
          {list.loading && !list.data && <Loading />}
          {items.map((item) => (
            <article class="panel" key={item.id} aria-label={String(item.name ?? item.domain ?? item.id)}>
              <div class="heading">
                <h3>{String(item.name ?? item.domain ?? item.id)}</h3>
                <code class="muted small">{item.id}</code>
              </div>
              <dl class="kv compact">
                {spec.columns(item, names).map(([k, v]) => (
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
                  catalog={catalog.data}
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
