// The issuer preference of a certificate or of a project's defaults: ACME accounts in the order
// orders try them (the first choice first; failover goes down the list), with the profile and
// the chain asked for. Each account is shown with its CA provider, and the profile is one the
// first account's provider offers (read from its directory).
import { useState } from "preact/hooks";
import { listAcmeAccounts } from "../api/acme";
import { listCaProviders } from "../api/ca-providers";
import { ApiError } from "../api/client";
import type { AcmeAccount, CaProvider } from "../api/types";
import { useLoad } from "../lib/load";
import { allPages, type PageQuery } from "../api/all-pages";
import { Field, SelectField } from "./ui";

export const maxIssuers = 5; // the server's limit of a preference

export interface Issuers {
  accounts: AcmeAccount[];
  providers: CaProvider[];
  error: unknown;
  loaded: boolean;
}

// The project's accounts and the organisation's providers, read once for a form or a page.
export function useIssuers(project: string): Issuers {
  const accounts = useLoad(() => allPages((q: PageQuery) => listAcmeAccounts(project, q), "acme_accounts"), [project]);
  const providers = useLoad(() => listCaProviders(), []);
  return {
    accounts: accounts.data?.acme_accounts ?? [],
    providers: providers.data?.ca_providers ?? [],
    error: accounts.error ?? providers.error,
    loaded: !!accounts.data && !!providers.data,
  };
}

// "pebble (Let's Encrypt)": an account by name with its provider's; an id no longer listed as such.
export function accountLabel(issuers: Issuers, id: string | null | undefined): string {
  if (!id) return "—";
  const account = issuers.accounts.find((a) => a.id === id);
  if (!account) return issuers.loaded ? `${id} (deleted)` : id;
  const provider = issuers.providers.find((p) => p.id === account.ca_provider_id);
  return provider ? `${account.name} (${provider.name})` : account.name;
}

export function providerLabel(issuers: Issuers, id: string | null | undefined): string {
  if (!id) return "—";
  return issuers.providers.find((p) => p.id === id)?.name ?? id;
}

// The profiles the provider of the first account offers ([] when none, or none chosen).
export function profilesFor(issuers: Issuers, accountIds: string[]): CaProvider["profiles"] {
  const first = issuers.accounts.find((a) => a.id === accountIds[0]);
  return issuers.providers.find((p) => p.id === first?.ca_provider_id)?.profiles ?? [];
}

// The ordered list: each chosen account with up, down and remove; a select and its button add
// another (the button, not the select's change: arrow keys move through a closed select).
export function IssuerPreference({ issuers, value, onChange, label, hint }: { issuers: Issuers; value: string[]; onChange: (ids: string[]) => void; label: string; hint: string }) {
  const move = (i: number, by: number) => {
    const next = [...value];
    const [id] = next.splice(i, 1);
    next.splice(i + by, 0, id!);
    onChange(next);
  };
  const left = issuers.accounts.filter((a) => !value.includes(a.id));
  const [pick, setPick] = useState("");
  return (
    <fieldset class="issuers wide">
      <legend>{label}</legend>
      <ol class="plain-list">
        {value.map((id, i) => {
          const name = accountLabel(issuers, id);
          return (
            <li key={id}>
              <span>
                {i + 1}. {name}
                {i === 0 && <span class="muted"> (first choice)</span>}
              </span>{" "}
              <button type="button" class="plain" disabled={i === 0} aria-label={`Move ${name} up`} onClick={() => move(i, -1)}>
                ↑
              </button>
              <button type="button" class="plain" disabled={i === value.length - 1} aria-label={`Move ${name} down`} onClick={() => move(i, 1)}>
                ↓
              </button>
              <button type="button" class="plain" aria-label={`Remove ${name}`} onClick={() => onChange(value.filter((x) => x !== id))}>
                Remove
              </button>
            </li>
          );
        })}
        {value.length === 0 && <li class="muted">{hint}</li>}
      </ol>
      {value.length < maxIssuers && left.length > 0 && (
        <div class="inline-form">
          <Field label={value.length === 0 ? "Add an ACME account" : "Add a fallback account"}>
            {(id) => (
              <select id={id} value={left.some((a) => a.id === pick) ? pick : ""} onChange={(e) => setPick((e.target as HTMLSelectElement).value)}>
                <option value="">Choose…</option>
                {left.map((a) => (
                  <option key={a.id} value={a.id}>
                    {accountLabel(issuers, a.id)}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <button
            type="button"
            disabled={!left.some((a) => a.id === pick)}
            onClick={() => {
              onChange([...value, pick]);
              setPick("");
            }}
          >
            Add
          </button>
        </div>
      )}
    </fieldset>
  );
}

// The profile a form sends: none without accounts (the server refuses a profile without them).
export const profileFor = (accountIds: string[], profile: string) => (accountIds.length ? profile : "");

// The profile asked for: one the first account's CA offers, or the CA's default.
export function ProfileSelect({ issuers, accountIds, value, onChange, hint }: { issuers: Issuers; accountIds: string[]; value: string; onChange: (v: string) => void; hint?: string }) {
  const offered = profilesFor(issuers, accountIds);
  const options = offered.map((p) => ({ name: p.name, text: p.description ? `${p.name}: ${p.description}` : p.name }));
  if (value && !offered.some((p) => p.name === value)) options.unshift({ name: value, text: `${value} (not offered now)` });
  return (
    <Field label="ACME profile" hint={offered.length === 0 ? "The first account's CA offers no profiles" : (hint ?? "Read from the CA's directory")}>
      {(id) => (
        <select id={id} value={value} disabled={options.length === 0} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
          <option value="">The CA's default</option>
          {options.map((o) => (
            <option key={o.name} value={o.name}>
              {o.text}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

// A certificate's issuers, profile (with accounts only) and preferred chain, as the create and
// change forms edit them.
export function IssuerFields(props: { issuers: Issuers; accounts: string[]; setAccounts: (ids: string[]) => void; profile: string; setProfile: (v: string) => void; chain: string; setChain: (v: string) => void }) {
  return (
    <>
      <IssuerPreference
        issuers={props.issuers}
        value={props.accounts}
        onChange={props.setAccounts}
        label="Issuers (ACME accounts, in the order tried)"
        hint="None chosen: the project's default issuers, else its only or first account"
      />
      {props.accounts.length > 0 && <ProfileSelect issuers={props.issuers} accountIds={props.accounts} value={props.profile} onChange={props.setProfile} />}
      <Field label="Preferred chain" hint="The issuer name of the chain's top certificate; empty: the CA's default (or the project's)">
        {(id) => <input id={id} value={props.chain} spellcheck={false} onInput={(e) => props.setChain((e.target as HTMLInputElement).value)} />}
      </Field>
    </>
  );
}

// A 422 policy_violation's broken rules, each in words.
export function PolicyViolations({ error }: { error: unknown }) {
  if (!(error instanceof ApiError) || error.status !== 422) return null;
  const violations = (error.body as { violations?: { rule: string; message: string }[] } | null)?.violations;
  if (!Array.isArray(violations) || violations.length === 0) return null;
  return (
    <ul class="plain-list bad-text">
      {violations.map((v) => (
        <li key={v.rule}>{v.message}</li>
      ))}
    </ul>
  );
}

// When renewal starts: a share of the lifetime left (what ACME clients do: a third of a 90-day
// certificate's life is 30 days, of a six-day one two days), or a number of days before expiry.
export interface Renewal {
  by: string; // "default" (a third of the lifetime left), "fraction" or "days"
  days: string;
  fraction: string; // per cent of the lifetime left
}

export function renewalOf(r: Renewal): { renewal_threshold_days?: number; renew_at_fraction?: number } {
  if (r.by === "days") return { renewal_threshold_days: Number(r.days) };
  if (r.by === "fraction") return { renew_at_fraction: Number(r.fraction) / 100 };
  return {};
}

export function RenewalTiming({ value, onChange }: { value: Renewal; onChange: (r: Renewal) => void }) {
  return (
    <>
      <SelectField
        label="Renew"
        value={value.by}
        options={[
          ["default", "With a third of the lifetime left"],
          ["fraction", "With another share of the lifetime left"],
          ["days", "A number of days before expiry"],
        ]}
        onChange={(by) => onChange({ ...value, by })}
      />
      {value.by === "default" ? null : value.by === "days" ? (
        <Field label="Days before expiry" hint="1 to 365">
          {(id) => <input id={id} type="number" min={1} max={365} required value={value.days} onInput={(e) => onChange({ ...value, days: (e.target as HTMLInputElement).value })} />}
        </Field>
      ) : (
        <Field label="Share of the lifetime left (%)" hint="1 to 99; 33: a 90-day certificate renews with 30 days left, a six-day one after four days">
          {(id) => <input id={id} type="number" min={1} max={99} required value={value.fraction} onInput={(e) => onChange({ ...value, fraction: (e.target as HTMLInputElement).value })} />}
        </Field>
      )}
    </>
  );
}
