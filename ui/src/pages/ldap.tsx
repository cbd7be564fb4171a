// The directory settings (owners): where the directory is, how to reach it safely, how people
// and their groups are found, and which org role each group grants. The bind password is
// write-only. The test runs on the saved settings, optionally with a person's login.
import { useEffect, useState } from "preact/hooks";
import { getLdapSettings, putLdapSettings, testLdapSettings } from "../api/settings";
import type { LdapSettings, LdapSettingsInput, LdapTestResult } from "../api/types";
import { RoleMappings, FallbackRole } from "../components/mappings";
import { ActionButton, ErrorBanner, Field, Loading, Notice, SelectField } from "../components/ui";
import { useLoad, useSubmit } from "../lib/load";

export function Ldap() {
  const settings = useLoad(() => getLdapSettings(), []);
  const [form, setForm] = useState<LdapSettings | null>(null);
  const [password, setPassword] = useState("");
  const [saved, setSaved] = useState(false);
  const [login, setLogin] = useState({ username: "", password: "" });
  const [test, setTest] = useState<LdapTestResult | null>(null);
  useEffect(() => {
    if (settings.data) setForm(settings.data);
  }, [settings.data]);
  const { error, submit: save } = useSubmit(async () => {
    if (!form) return;
    setSaved(false);
    const { bind_password_configured: _configured, ...fields } = form;
    const body: LdapSettingsInput = {
      ...fields,
      port: Number(form.port) || (form.security === "ldaps" ? 636 : 389),
      connect_timeout_seconds: Number(form.connect_timeout_seconds) || 5,
      operation_timeout_seconds: Number(form.operation_timeout_seconds) || 10,
      default_org_role: form.deny_without_group ? null : form.default_org_role,
    };
    if (password) body.bind_password = password;
    const answer = await putLdapSettings(body);
    setForm(answer);
    setPassword("");
    setSaved(true);
  });
  if (settings.error) return <ErrorBanner error={settings.error} />;
  if (!form) return <Loading />;
  const set = <K extends keyof LdapSettings>(k: K, v: LdapSettings[K]) => setForm({ ...form, [k]: v });
  const text = (k: keyof LdapSettings, label: string, hint?: string) => (
    <Field label={label} hint={hint}>
      {(id) => <input id={id} value={String(form[k] ?? "")} onInput={(e) => set(k, (e.target as HTMLInputElement).value as never)} spellcheck={false} />}
    </Field>
  );
  return (
    <section>
      <h1>Directory (LDAP)</h1>
      <form class="panel" onSubmit={save} aria-label="LDAP settings">
        {saved && <Notice>Saved.</Notice>}
        <ErrorBanner error={error} />
        <div class="field checkbox">
          <input id="ldap-enabled" type="checkbox" checked={form.enabled} onChange={(e) => set("enabled", (e.target as HTMLInputElement).checked)} />
          <label for="ldap-enabled">Directory users can log in</label>
        </div>
        <h2>Server</h2>
        <div class="grid">
          {text("host", "Host")}
          {text("port", "Port")}
          <SelectField
            label="Security"
            value={form.security}
            options={[
              ["starttls", "STARTTLS"],
              ["ldaps", "LDAPS (TLS)"],
              ["none", "None (loopback only)"],
            ]}
            onChange={(v) => set("security", v as LdapSettings["security"])}
          />
          {text("connect_timeout_seconds", "Connect timeout (s)")}
          {text("operation_timeout_seconds", "Search and bind timeout (s)")}
        </div>
        <Field label="CA bundle" hint="PEM certificates of the CAs that sign the directory's certificate; empty: the system's">
          {(id) => <textarea id={id} rows={3} value={form.ca_bundle} onInput={(e) => set("ca_bundle", (e.target as HTMLTextAreaElement).value)} spellcheck={false} />}
        </Field>
        <h2>Service account and people</h2>
        <div class="grid">
          {text("bind_dn", "Bind DN")}
          <Field label="Bind password" hint={form.bind_password_configured ? "Set; leave empty to keep it" : "Not set"}>
            {(id) => <input id={id} type="password" autocomplete="new-password" value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />}
          </Field>
          {text("base_dn", "Base DN")}
          {text("user_filter", "User filter", "With {username} where the login name goes")}
          {text("username_attribute", "Username attribute", "uid, or sAMAccountName for Active Directory")}
          {text("email_attribute", "Email attribute")}
        </div>
        <h2>Groups and roles</h2>
        <div class="grid">
          {text("group_base_dn", "Group base DN", "Empty: groups are not read")}
          {text("group_filter", "Group filter")}
          {text("member_attribute", "Member attribute")}
          <FallbackRole role={form.default_org_role} deny={form.deny_without_group} onChange={(role, deny) => setForm({ ...form, default_org_role: role, deny_without_group: deny })} />
        </div>
        <RoleMappings rows={form.group_mappings} field="group_dn" label="Group DN" onChange={(rows) => set("group_mappings", rows)} />
        <div class="buttons">
          <button class="primary" type="submit">
            Save
          </button>
        </div>
      </form>
      <section class="panel">
        <h2>Test</h2>
        <p class="muted">Runs on the saved settings. With a username and password it also checks that person's login and the role they would get, without creating anyone.</p>
        <div class="grid">
          <Field label="Username (optional)">
            {(id) => <input id={id} autocomplete="off" value={login.username} onInput={(e) => setLogin({ ...login, username: (e.target as HTMLInputElement).value })} />}
          </Field>
          <Field label="Password (optional)">
            {(id) => <input id={id} type="password" autocomplete="off" value={login.password} onInput={(e) => setLogin({ ...login, password: (e.target as HTMLInputElement).value })} />}
          </Field>
        </div>
        <ActionButton
          label="Test the directory"
          run={() => testLdapSettings(login.username ? login : {})}
          onDone={(r) => setTest(r as LdapTestResult)}
        />
        {test && (
          <div role="status" class="result">
            <strong>{test.ok ? "Test passed" : "Test failed"}</strong>
            <ul class="plain-list">
              {test.steps.map((s) => (
                <li key={s.step}>
                  {s.ok ? "✓" : "✗"} {s.step}: {s.message}
                </li>
              ))}
            </ul>
          </div>
        )}
      </section>
    </section>
  );
}
