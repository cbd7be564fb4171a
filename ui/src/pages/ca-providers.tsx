// The organisation's CA providers: every member sees which CAs certificates can come from (their
// directories, profiles, CAA identities, published rate limits and whether they are enabled);
// org admins add one from a preset or a custom directory, change, disable, read its directory
// again, or delete one no ACME account uses.
import { useEffect, useId, useState } from "preact/hooks";
import { caPresets, createCaProvider, deleteCaProvider, listCaProviders, refreshCaProvider, updateCaProvider } from "../api/ca-providers";
import type { CaPresets, CaProvider, CaProviderCreate } from "../api/types";
import { errorField } from "../components/catalog-fields";
import { ActionButton, ErrorBanner, Field, FormButtons, KeyValues, Loading, SelectField } from "../components/ui";
import { formatDuration, formatTime } from "../lib/format";
import { useLoad, useSubmit } from "../lib/load";
import { useCan } from "../session";

type Preset = CaPresets["presets"][number];
type LimitName = "certificates" | "orders" | "failed_validations";
const limitNames: [LimitName, string][] = [
  ["certificates", "Certificates"],
  ["orders", "New orders"],
  ["failed_validations", "Failed validations"],
];

// The form's text of a provider (or of a preset, for a new one).
interface Form {
  preset: string;
  name: string;
  directory_url: string;
  trust_bundle: string;
  eab_required: boolean;
  caa_identities: string;
  limits: Record<LimitName, { max: string; window_seconds: string }>;
}

function formOf(p: Omit<Partial<CaProvider>, "preset"> & { preset?: string }): Form {
  const limit = (n: LimitName) => ({ max: String(p.rate_limits?.[n]?.max ?? ""), window_seconds: String(p.rate_limits?.[n]?.window_seconds ?? "") });
  return {
    preset: p.preset ?? "custom",
    name: p.name ?? "",
    directory_url: p.directory_url ?? "",
    trust_bundle: p.trust_bundle ?? "",
    eab_required: p.eab_required ?? false,
    caa_identities: (p.caa_identities ?? []).join(", "),
    limits: { certificates: limit("certificates"), orders: limit("orders"), failed_validations: limit("failed_validations") },
  };
}

// The body of the form: on create every field; on edit what changed from `before` (the form as
// it opened: a directory read meanwhile is not undone).
function bodyOf(form: Form, before?: Form): CaProviderCreate {
  const body: CaProviderCreate = {};
  const changed = <K extends keyof Form>(k: K) => !before || JSON.stringify(form[k]) !== JSON.stringify(before[k]);
  if (changed("name") && form.name.trim()) body.name = form.name.trim();
  if (changed("directory_url") && form.directory_url.trim()) body.directory_url = form.directory_url.trim();
  if (changed("trust_bundle") && (before || form.trust_bundle.trim())) body.trust_bundle = form.trust_bundle.trim();
  if (changed("eab_required")) body.eab_required = form.eab_required;
  if (changed("caa_identities")) body.caa_identities = form.caa_identities.split(/[\s,]+/).filter(Boolean);
  const limits: NonNullable<CaProviderCreate["rate_limits"]> = {};
  for (const [n] of limitNames) {
    const l = form.limits[n];
    const was = before?.limits[n];
    const entry: { max?: number; window_seconds?: number } = {};
    if (l.max !== (was?.max ?? "") && (l.max.trim() || was)) entry.max = Number(l.max.trim() || 0);  // emptied: none published
    if (l.window_seconds.trim() && l.window_seconds !== was?.window_seconds) entry.window_seconds = Number(l.window_seconds);
    if (Object.keys(entry).length) limits[n] = entry;
  }
  if (Object.keys(limits).length) body.rate_limits = limits;
  return body;
}

function ProviderForm({ presets, stored, onSaved, onCancel }: { presets: Preset[]; stored?: CaProvider; onSaved: () => void; onCancel: () => void }) {
  const [form, setForm] = useState<Form>(() => formOf(stored ?? {}));
  const [opened] = useState(() => (stored ? formOf(stored) : undefined));
  const eabId = useId();
  const set = <K extends keyof Form>(k: K, v: Form[K]) => setForm({ ...form, [k]: v });
  const choosePreset = (name: string) => {
    const preset = presets.find((p) => p.preset === name);
    setForm(preset ? formOf({ ...preset, preset: name, rate_limits: preset.rate_limits as CaProvider["rate_limits"] }) : formOf({ preset: "custom" }));
  };
  const { busy, error, submit } = useSubmit(async () => {
    const body = bodyOf(form, opened);
    if (stored) await updateCaProvider(stored.id, body);
    else await createCaProvider({ ...body, preset: form.preset as CaProviderCreate["preset"] });
    onSaved();
  });
  const failed = errorField(error);
  const custom = form.preset === "custom" || !!stored;  // a name and directory are needed then
  const text = (k: "name" | "directory_url" | "caa_identities", label: string, hint?: string, required = false) => (
    <Field label={label + (required ? " *" : "")} hint={failed === k ? undefined : hint}>
      {(id) => (
        <>
          <input id={id} required={required} value={form[k]} spellcheck={false} autocomplete="off" onInput={(e) => set(k, (e.target as HTMLInputElement).value)} />
          {failed === k && error instanceof Error && (
            <small class="bad-text" role="alert">
              {error.message}
            </small>
          )}
        </>
      )}
    </Field>
  );
  return (
    <form class="panel" onSubmit={submit} aria-label={stored ? `Edit ${stored.name}` : "New CA provider"}>
      <h2>{stored ? `Edit ${stored.name}` : "New CA provider"}</h2>
      {(!failed || !["name", "directory_url", "caa_identities"].includes(failed)) && <ErrorBanner error={error} />}
      <div class="grid">
        {!stored && (
          <SelectField
            label="Preset"
            value={form.preset}
            options={[["custom", "Custom (any ACME directory)"], ...presets.map((p): [string, string] => [p.preset, p.name])]}
            onChange={choosePreset}
            hint="A preset fills in the CA's directory, CAA identities and published limits"
          />
        )}
        {text("name", "Name", undefined, custom)}
        {text("directory_url", "Directory URL", "https://… of the CA's ACME directory", custom)}
        {text("caa_identities", "CAA identities", "The issuer domain names CAA records allow this CA by, e.g. letsencrypt.org; empty: read from the directory")}
        <div class="field checkbox">
          <input id={eabId} type="checkbox" checked={form.eab_required} onChange={(e) => set("eab_required", (e.target as HTMLInputElement).checked)} />
          <label for={eabId}>Accounts need External Account Binding (EAB)</label>
        </div>
        <Field label="Trust bundle (PEM)" hint="For a private ACME CA: only these certificates are trusted for its HTTPS; empty: the system's">
          {(id) => <textarea id={id} rows={3} value={form.trust_bundle} spellcheck={false} onInput={(e) => set("trust_bundle", (e.target as HTMLTextAreaElement).value)} />}
        </Field>
      </div>
      <fieldset class="kind-fields">
        <legend>Published rate limits (per registered domain or account)</legend>
        <div class="grid">
          {limitNames.map(([n, label]) => (
            <div key={n} class="inline-form">
              <Field label={`${label}: at most`}>
                {(id) => <input id={id} type="number" min={0} value={form.limits[n].max} onInput={(e) => set("limits", { ...form.limits, [n]: { ...form.limits[n], max: (e.target as HTMLInputElement).value } })} />}
              </Field>
              <Field label={`${label}: per (seconds)`}>
                {(id) => <input id={id} type="number" min={1} value={form.limits[n].window_seconds} onInput={(e) => set("limits", { ...form.limits, [n]: { ...form.limits[n], window_seconds: (e.target as HTMLInputElement).value } })} />}
              </Field>
            </div>
          ))}
        </div>
      </fieldset>
      <FormButtons busy={busy} label={stored ? "Save" : "Add provider"} onCancel={onCancel} />
    </form>
  );
}

function limitText(l: { max: number; window_seconds: number }): string {
  return l.max > 0 ? `${l.max} per ${formatDuration(l.window_seconds)}` : "none published";
}

function ProviderCard({ provider: p, admin, presets, onChange }: { provider: CaProvider; admin: boolean; presets: Preset[]; onChange: () => void }) {
  const [editing, setEditing] = useState(false);
  return (
    <article class="panel" aria-label={p.name}>
      <div class="heading">
        <h2>{p.name}</h2>
        <span class={`badge ${p.enabled ? (p.available ? "good" : "warn") : "muted"}`}>{p.enabled ? (p.available ? "enabled" : "enabled, no challenge this instance can answer") : "disabled"}</span>
      </div>
      {p.directory_error && (
        <div class="banner error" role="alert">
          The directory could not be read: {p.directory_error}
        </div>
      )}
      <KeyValues
        rows={[
          ["Directory", <code class="small">{p.directory_url}</code>],
          ["Preset", p.preset],
          ["External Account Binding", p.eab_required ? "required" : "not required"],
          ["CAA identities", p.caa_identities.length ? p.caa_identities.join(", ") : "—"],
          ["Profiles", p.profiles.length ? p.profiles.map((x) => x.name).join(", ") : "none offered"],
          ["Challenges", p.challenges.join(", ") || "—"],
          ["Certificates", limitText(p.rate_limits.certificates)],
          ["New orders", limitText(p.rate_limits.orders)],
          ["Failed validations", limitText(p.rate_limits.failed_validations)],
          ["Trust", p.trust_bundle ? "its own bundle" : "the system's"],
          ["Directory read", formatTime(p.directory_read_at)],
          ["Id", <code>{p.id}</code>],
        ]}
      />
      {editing && (
        <ProviderForm
          presets={presets}
          stored={p}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            onChange();
          }}
        />
      )}
      {admin && (
        <div class="buttons">
          {!editing && (
            <button type="button" onClick={() => setEditing(true)}>
              Edit
            </button>
          )}
          <ActionButton label="Read directory again" run={() => refreshCaProvider(p.id)} onDone={onChange} />
          <ActionButton
            label={p.enabled ? "Disable" : "Enable"}
            confirm={p.enabled ? `Disable ${p.name}? Orders skip its accounts until it is enabled again.` : undefined}
            run={() => updateCaProvider(p.id, { enabled: !p.enabled })}
            onDone={onChange}
          />
          <ActionButton kind="danger" label="Delete" confirm={`Delete ${p.name}?`} run={() => deleteCaProvider(p.id)} onDone={onChange} />
        </div>
      )}
    </article>
  );
}

export function CaProviders() {
  const can = useCan();
  const admin = can("manage_ca_providers");
  const providers = useLoad(() => listCaProviders(), []);
  const presets = useLoad(() => (admin ? caPresets() : Promise.resolve({ presets: [] as Preset[] })), [admin]);
  const [creating, setCreating] = useState(false);
  useEffect(() => setCreating(false), [admin]);
  const list = providers.data?.ca_providers ?? [];
  return (
    <section>
      <div class="heading">
        <h1>CA providers</h1>
        {admin && !creating && (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New CA provider
          </button>
        )}
      </div>
      <p class="muted">The certificate authorities this organisation issues from. A project's ACME accounts each belong to one; a certificate lists accounts in order and fails over down that list.</p>
      {creating && (
        <ProviderForm
          presets={presets.data?.presets ?? []}
          onCancel={() => setCreating(false)}
          onSaved={() => {
            setCreating(false);
            providers.reload();
          }}
        />
      )}
      <ErrorBanner error={providers.error ?? presets.error} />
      {!providers.data && !providers.error && <Loading />}
      {list.map((p) => (
        <ProviderCard key={p.id} provider={p} admin={admin} presets={presets.data?.presets ?? []} onChange={providers.reload} />
      ))}
      {providers.data && list.length === 0 && <p class="muted">No provider yet: an ACME account made with a directory URL adds one, or add one here.</p>}
    </section>
  );
}
