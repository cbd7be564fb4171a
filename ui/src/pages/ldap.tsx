// The directory settings (owners). The bind password is write-only.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api/client";
import type { LdapSettings } from "../api/types";
import { ActionButton, ErrorBanner, Field, Loading, Notice } from "../components/ui";
import { useLoad, useSubmit } from "../lib/load";

export function Ldap() {
  const settings = useLoad(() => api.get<LdapSettings>("/settings/ldap"), []);
  const [form, setForm] = useState<LdapSettings | null>(null);
  const [password, setPassword] = useState("");
  const [saved, setSaved] = useState(false);
  const [test, setTest] = useState<unknown>(null);
  useEffect(() => {
    if (settings.data) setForm(settings.data);
  }, [settings.data]);
  const { error, submit: save } = useSubmit(async () => {
    if (!form) return;
    setSaved(false);
    const body: Record<string, unknown> = { host: form.host, port: Number(form.port) || 389, base_dn: form.base_dn, bind_dn: form.bind_dn, user_filter: form.user_filter, use_tls: form.use_tls };
    if (password) body.bind_password = password;
    const answer = await api.put<LdapSettings>("/settings/ldap", body);
    setForm(answer);
    setPassword("");
    setSaved(true);
  });
  if (settings.error) return <ErrorBanner error={settings.error} />;
  if (!form) return <Loading />;
  const set = (k: keyof LdapSettings, v: string | number | boolean) => setForm({ ...form, [k]: v });
  const text = (k: keyof LdapSettings, label: string, hint?: string) => (
    <Field label={label} hint={hint}>
      {(id) => <input id={id} value={String(form[k] ?? "")} onInput={(e) => set(k, (e.target as HTMLInputElement).value)} />}
    </Field>
  );
  return (
    <section>
      <h1>Directory (LDAP)</h1>
      <form class="panel" onSubmit={save} aria-label="LDAP settings">
        {saved && <Notice>Saved.</Notice>}
        <ErrorBanner error={error} />
        <div class="grid">
          {text("host", "Host")}
          {text("port", "Port")}
          {text("base_dn", "Base DN")}
          {text("bind_dn", "Bind DN")}
          {text("user_filter", "User filter", "With {username} where the name goes")}
          <Field label="Bind password" hint={form.bind_password_configured ? "Set; leave empty to keep it" : "Not set"}>
            {(id) => <input id={id} type="password" autocomplete="new-password" value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />}
          </Field>
          <div class="field checkbox">
            <input id="ldap-tls" type="checkbox" checked={form.use_tls} onChange={(e) => set("use_tls", (e.target as HTMLInputElement).checked)} />
            <label for="ldap-tls">Use TLS</label>
          </div>
        </div>
        <div class="buttons">
          <button class="primary" type="submit">
            Save
          </button>
          <ActionButton label="Test the connection" run={() => api.post("/settings/ldap/test", {})} onDone={setTest} />
        </div>
        {test !== null && <pre class="result">{JSON.stringify(test, null, 2)}</pre>}
      </form>
    </section>
  );
}
