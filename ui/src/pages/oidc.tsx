// Single sign-on settings (owners): the OpenID provider, this server's client there, the claims
// that name a person and their groups, and the role each group grants. The client secret is
// write-only.
import { useEffect, useState } from "preact/hooks";
import { oidcCallbackAddress } from "../api/auth";
import { getOidcSettings, putOidcSettings } from "../api/settings";
import type { OidcSettings, OidcSettingsInput } from "../api/types";
import { RoleMappings, FallbackRole } from "../components/mappings";
import { ErrorBanner, Field, Loading, Notice } from "../components/ui";
import { useLoad, useSubmit } from "../lib/load";

function defaults(): OidcSettings {
  return {
    enabled: false,
    display_name: "single sign-on",
    issuer: "",
    client_id: "",
    client_secret_configured: false,
    redirect_uri: oidcCallbackAddress(),
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
  const settings = useLoad(() => getOidcSettings(), []);
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
    const body: OidcSettingsInput = { ...fields, default_org_role: form.deny_without_group ? null : form.default_org_role };
    if (secret) body.client_secret = secret;
    else if (removeSecret) body.client_secret = "";
    const answer = await putOidcSettings(body);
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
          <FallbackRole role={form.default_org_role} deny={form.deny_without_group} onChange={(role, deny) => setForm({ ...form, default_org_role: role, deny_without_group: deny })} />
        </div>
        <Field label="CA bundle" hint="PEM certificates of the CAs that sign the provider's certificate; empty: the system's">
          {(id) => <textarea id={id} rows={3} value={form.ca_bundle} onInput={(e) => set("ca_bundle", (e.target as HTMLTextAreaElement).value)} spellcheck={false} />}
        </Field>
        <RoleMappings rows={form.group_mappings} field="group" label="Group" onChange={(rows) => set("group_mappings", rows)} />
        <div class="buttons">
          <button class="primary" type="submit">
            Save
          </button>
        </div>
      </form>
    </section>
  );
}
