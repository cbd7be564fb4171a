// Single sign-on settings (owners): the OpenID provider, this server's client there, the claims
// that name a person and their groups, and the role each group grants. The client secret is
// write-only.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client";
import type { OidcSettings } from "../api/types";
import { ErrorBanner, Field, Loading, Notice, SelectField } from "../components/ui";
import { useLoad, useSubmit } from "../lib/load";

const roles = ["viewer", "operator", "admin", "owner"];

function defaults(): OidcSettings {
  return {
    enabled: false,
    display_name: "single sign-on",
    issuer: "",
    client_id: "",
    client_secret_configured: false,
    redirect_uri: `${window.location.origin}/api/v1/auth/oidc/callback`,
    scopes: ["openid", "profile", "email"],
    username_claim: "preferred_username",
    groups_claim: "groups",
    group_mappings: [],
    default_org_role: "viewer",
    deny_without_group: false,
    ca_bundle: "",
  };
}

export function Oidc() {
  const settings = useLoad(() => api.get<OidcSettings>("/settings/oidc"), []);
  const [form, setForm] = useState<OidcSettings | null>(null);
  const [secret, setSecret] = useState("");
  const [removeSecret, setRemoveSecret] = useState(false);
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (settings.data) setForm(settings.data.issuer ? settings.data : { ...defaults(), ...settings.data, redirect_uri: settings.data.redirect_uri || defaults().redirect_uri });
  }, [settings.data]);
  const { error, submit: save } = useSubmit(async () => {
    if (!form) return;
    setSaved(false);
    const { client_secret_configured: _configured, ...fields } = form;
    const body: Record<string, unknown> = { ...fields, default_org_role: form.deny_without_group ? null : form.default_org_role };
    if (secret) body.client_secret = secret;
    else if (removeSecret) body.client_secret = "";
    const answer = await api.put<OidcSettings>("/settings/oidc", body);
    setForm(answer);
    setSecret("");
    setRemoveSecret(false);
    setSaved(true);
  });
  if (settings.error) return <ErrorBanner error={settings.error} />;
  if (!form) return <Loading />;
  const set = <K extends keyof OidcSettings>(k: K, v: OidcSettings[K]) => setForm({ ...form, [k]: v });
  const text = (k: "display_name" | "issuer" | "client_id" | "redirect_uri" | "username_claim" | "groups_claim", label: string, hint?: string) => (
    <Field label={label} hint={hint}>
      {(id) => <input id={id} value={form[k]} onInput={(e) => set(k, (e.target as HTMLInputElement).value)} spellcheck={false} />}
    </Field>
  );
  const mappings = form.group_mappings;
  const setMapping = (i: number, m: Partial<{ group: string; org_role: string }>) => set("group_mappings", mappings.map((x, j) => (i === j ? { ...x, ...m } : x)));
  const fallback = form.deny_without_group ? "refuse" : form.default_org_role ?? "viewer";
  return (
    <section>
      <h1>Single sign-on (OpenID Connect)</h1>
      <form class="panel" onSubmit={save} aria-label="Single sign-on settings">
        {saved && <Notice>Saved.</Notice>}
        <ErrorBanner error={error} />
        <div class="field checkbox">
          <input id="oidc-enabled" type="checkbox" checked={form.enabled} onChange={(e) => set("enabled", (e.target as HTMLInputElement).checked)} />
          <label for="oidc-enabled">Offer single sign-on on the sign-in page</label>
        </div>
        <div class="grid">
          {text("display_name", "Button name", "Shown as “Sign in with …”")}
          {text("issuer", "Issuer URL", "The provider's issuer; discovery is read from it")}
          {text("client_id", "Client ID")}
          <Field label="Client secret" hint={form.client_secret_configured ? "Set; leave empty to keep it" : "Not set (a public client)"}>
            {(id) => <input id={id} type="password" autocomplete="new-password" value={secret} onInput={(e) => setSecret((e.target as HTMLInputElement).value)} />}
          </Field>
          {form.client_secret_configured && (
            <div class="field checkbox">
              <input id="oidc-public" type="checkbox" checked={removeSecret} onChange={(e) => setRemoveSecret((e.target as HTMLInputElement).checked)} />
              <label for="oidc-public">Remove the secret (a public client, PKCE only)</label>
            </div>
          )}
          {text("redirect_uri", "Redirect URI", "Register exactly this at the provider")}
          <Field label="Scopes" hint="Separated by spaces; openid is required">
            {(id) => <input id={id} value={form.scopes.join(" ")} onInput={(e) => set("scopes", (e.target as HTMLInputElement).value.split(/\s+/).filter(Boolean))} spellcheck={false} />}
          </Field>
          {text("username_claim", "Username claim", "preferred_username, email, …")}
          {text("groups_claim", "Groups claim", "Empty: groups are not read")}
          <SelectField
            label="People in no mapped group"
            value={fallback}
            options={[["viewer", "Viewer"], ["operator", "Operator"], ["admin", "Admin"], ["refuse", "Are refused"]]}
            onChange={(v) => setForm({ ...form, deny_without_group: v === "refuse", default_org_role: v === "refuse" ? null : v })}
          />
        </div>
        <Field label="CA bundle" hint="PEM certificates of the CAs that sign the provider's certificate; empty: the system's">
          {(id) => <textarea id={id} rows={3} value={form.ca_bundle} onInput={(e) => set("ca_bundle", (e.target as HTMLTextAreaElement).value)} spellcheck={false} />}
        </Field>
        <table class="mappings">
          <caption>Group mappings (the highest role of a person's groups wins)</caption>
          <thead>
            <tr>
              <th scope="col">Group</th>
              <th scope="col">Org role</th>
              <th scope="col">
                <span class="sr-only">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {mappings.map((m, i) => (
              <tr key={i}>
                <td>
                  <input aria-label={`Group ${i + 1}`} value={m.group} onInput={(e) => setMapping(i, { group: (e.target as HTMLInputElement).value })} spellcheck={false} />
                </td>
                <td>
                  <select aria-label={`Org role ${i + 1}`} value={m.org_role} onChange={(e) => setMapping(i, { org_role: (e.target as HTMLSelectElement).value })}>
                    {roles.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  <button type="button" onClick={() => set("group_mappings", mappings.filter((_, j) => j !== i))}>
                    Remove
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        <div class="buttons">
          <button type="button" onClick={() => set("group_mappings", [...mappings, { group: "", org_role: "viewer" }])}>
            Add a mapping
          </button>
          <button class="primary" type="submit">
            Save
          </button>
        </div>
      </form>
    </section>
  );
}
