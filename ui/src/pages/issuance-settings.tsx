// A project's issuance settings: the defaults a new certificate takes when it leaves them out
// (the issuer preference, the ACME profile, the preferred chain) and the policy every
// certificate of the project must keep (key types, name suffixes, wildcards, IP addresses, the
// longest lifetime, the CA providers). Any member reads them; project admins change them. A
// certificate outside the policy is refused at create and stopped at renewal (event
// policy.violation).
import { useEffect, useState } from "preact/hooks";
import { getIssuanceSettings, putIssuanceSettings } from "../api/ca-providers";
import { keyTypes, type IssuanceSettings, type KeyType } from "../api/types";
import { errorField } from "../components/catalog-fields";
import { IssuerPreference, ProfileSelect, profileFor, useIssuers } from "../components/issuers";
import { ErrorBanner, Field, Loading, Notice } from "../components/ui";
import { humanize } from "../lib/format";
import { useLoad, useSubmit } from "../lib/load";

interface Form {
  accounts: string[];
  profile: string;
  chain: string;
  keyTypes: KeyType[];
  suffixes: string;
  wildcards: boolean;
  ips: boolean;
  maxLifetime: string;
  providers: string[];
}

function formOf(s: IssuanceSettings): Form {
  return {
    accounts: s.defaults?.acme_account_ids ?? [],
    profile: s.defaults?.profile ?? "",
    chain: s.defaults?.preferred_chain ?? "",
    keyTypes: s.policy?.allowed_key_types ?? [],
    suffixes: (s.policy?.allowed_suffixes ?? []).join(", "),
    wildcards: s.policy?.allow_wildcards ?? true,
    ips: s.policy?.allow_ip_addresses ?? true,
    maxLifetime: String(s.policy?.max_lifetime_days ?? 0),
    providers: s.policy?.allowed_ca_provider_ids ?? [],
  };
}

function settingsOf(f: Form): IssuanceSettings {
  return {
    defaults: { acme_account_ids: f.accounts, profile: profileFor(f.accounts, f.profile), preferred_chain: f.chain.trim() },
    policy: {
      allowed_key_types: f.keyTypes,
      allowed_suffixes: f.suffixes.split(/[\s,]+/).filter(Boolean),
      allow_wildcards: f.wildcards,
      allow_ip_addresses: f.ips,
      max_lifetime_days: Number(f.maxLifetime) || 0,
      allowed_ca_provider_ids: f.providers,
    },
  };
}

// The fields whose 422 is shown beside them; any other error is shown on top.
const inlineFields = ["defaults.acme_account_ids", "defaults.profile", "policy.allowed_suffixes", "policy.max_lifetime_days", "policy.allowed_ca_provider_ids"];

const toggled = <T,>(list: T[], value: T, on: boolean): T[] => (on ? [...list.filter((x) => x !== value), value] : list.filter((x) => x !== value));

export function IssuanceSettingsSection({ project, admin }: { project: string; admin: boolean }) {
  const stored = useLoad(() => getIssuanceSettings(project), [project]);
  const issuers = useIssuers(project);
  const [form, setForm] = useState<Form | null>(null);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (stored.data) setForm(formOf(stored.data.issuance_settings));
  }, [stored.data]);
  const { busy, error, submit } = useSubmit(async () => {
    if (!form) return;
    setSaved(false);
    const answer = await putIssuanceSettings(project, settingsOf(form));
    setForm(formOf(answer.issuance_settings));
    setSaved(true);
  });
  if (stored.error) return <ErrorBanner error={stored.error} />;
  if (!form) return <Loading />;
  const set = <K extends keyof Form>(k: K, v: Form[K]) => {
    setSaved(false);
    setForm({ ...form, [k]: v });
  };
  const failed = errorField(error);
  const inline = (field: string) =>
    failed === field && error instanceof Error ? (
      <small class="bad-text" role="alert">
        {error.message}
      </small>
    ) : null;
  return (
    <form class="panel" onSubmit={submit} aria-label="Issuance settings">
      <h2>Issuance defaults and policy</h2>
      {saved && <Notice>Saved.</Notice>}
      <ErrorBanner error={issuers.error} />
      {!(failed && inlineFields.includes(failed)) && <ErrorBanner error={error} />}
      {!admin && <p class="muted">Project admins change these settings.</p>}
      <fieldset class="kind-fields" disabled={!admin}>
        <legend>Defaults for new certificates</legend>
        <div class="grid">
          <IssuerPreference
            issuers={issuers}
            value={form.accounts}
            onChange={(ids) => set("accounts", ids)}
            label="Issuer preference"
            hint="None: a certificate without accounts of its own uses the project's only or first account"
          />
          {inline("defaults.acme_account_ids")}
          <ProfileSelect issuers={issuers} accountIds={form.accounts} value={form.profile} onChange={(v) => set("profile", v)} />
          {inline("defaults.profile")}
          <Field label="Preferred chain" hint="The issuer common name of the chain's top certificate, e.g. ISRG Root X1; empty: the CA's default chain">
            {(id) => <input id={id} value={form.chain} spellcheck={false} onInput={(e) => set("chain", (e.target as HTMLInputElement).value)} />}
          </Field>
        </div>
      </fieldset>
      <fieldset class="kind-fields" disabled={!admin}>
        <legend>Policy: what every certificate of the project must keep</legend>
        <div class="grid">
          <fieldset class="checklist wide">
            <legend>Allowed key types (none ticked: any)</legend>
            {keyTypes.map((k) => (
              <label key={k}>
                <input type="checkbox" checked={form.keyTypes.includes(k)} onChange={(e) => set("keyTypes", toggled(form.keyTypes, k, (e.target as HTMLInputElement).checked))} /> {humanize(k)}
              </label>
            ))}
          </fieldset>
          <Field label="Allowed name suffixes" hint="e.g. example.com, internal; empty: any name of the project's zones">
            {(id) => <input id={id} value={form.suffixes} spellcheck={false} onInput={(e) => set("suffixes", (e.target as HTMLInputElement).value)} />}
          </Field>
          {inline("policy.allowed_suffixes")}
          <Field label="Longest lifetime (days)" hint="0: no limit; judged on what the CA issued">
            {(id) => <input id={id} type="number" min={0} max={3650} value={form.maxLifetime} onInput={(e) => set("maxLifetime", (e.target as HTMLInputElement).value)} />}
          </Field>
          {inline("policy.max_lifetime_days")}
          <div class="field checkbox">
            <input id="policy-wildcards" type="checkbox" checked={form.wildcards} onChange={(e) => set("wildcards", (e.target as HTMLInputElement).checked)} />
            <label for="policy-wildcards">Wildcard names allowed</label>
          </div>
          <div class="field checkbox">
            <input id="policy-ips" type="checkbox" checked={form.ips} onChange={(e) => set("ips", (e.target as HTMLInputElement).checked)} />
            <label for="policy-ips">IP address identifiers allowed</label>
          </div>
          <fieldset class="checklist wide">
            <legend>Allowed CA providers (none ticked: any)</legend>
            {[...issuers.providers.map((p) => ({ id: p.id, name: p.name })), ...(issuers.loaded ? form.providers.filter((id) => !issuers.providers.some((p) => p.id === id)).map((id) => ({ id, name: `${id} (deleted provider: untick it)` })) : [])].map((p) => (
              <label key={p.id}>
                <input type="checkbox" checked={form.providers.includes(p.id)} onChange={(e) => set("providers", toggled(form.providers, p.id, (e.target as HTMLInputElement).checked))} /> {p.name}
              </label>
            ))}
            {issuers.loaded && issuers.providers.length === 0 && <span class="muted">No CA provider yet.</span>}
          </fieldset>
          {inline("policy.allowed_ca_provider_ids")}
        </div>
      </fieldset>
      {admin && (
        <div class="buttons">
          <button class="primary" type="submit" disabled={busy}>
            {busy ? "Saving…" : "Save"}
          </button>
        </div>
      )}
    </form>
  );
}
