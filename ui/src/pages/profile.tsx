// The user's own settings: time zone and language (every time in the UI follows them),
// notification choices, their password (local users), their sessions, and the TOTP second
// factor.
import { useState } from "preact/hooks";
import { changeOwnPassword, disableTotp, enableTotp, endOwnSession, listOwnSessions, setUpTotp, updateProfile } from "../api/auth";
import type { TotpSetup } from "../api/types";
import { errorField } from "../components/catalog-fields";
import { ActionButton, ErrorBanner, Field, KeyValues, Loading, Notice } from "../components/ui";
import { formatTime, timeZone } from "../lib/format";
import { useLoad, useSubmit } from "../lib/load";
import { useSession } from "../session";

function zones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (k: string) => string[] };
  try {
    return intl.supportedValuesOf?.("timeZone") ?? [];
  } catch {
    return [];
  }
}

function Totp({ enabled, onChange }: { enabled: boolean; onChange: () => Promise<void> }) {
  const [setup, setSetup] = useState<TotpSetup | null>(null);
  const [code, setCode] = useState("");
  const [error, setError] = useState<unknown>(null);
  const run = async (e: Event, action: (code: string) => Promise<unknown>) => {
    e.preventDefault();
    setError(null);
    try {
      await action(code.trim());
      setSetup(null);
      setCode("");
      await onChange();
    } catch (err) {
      setError(err);
    }
  };
  const codeField = (
    <Field label="Code from your authenticator">
      {(id) => <input id={id} inputMode="numeric" autocomplete="one-time-code" required value={code} onInput={(e) => setCode((e.target as HTMLInputElement).value)} />}
    </Field>
  );
  return (
    <div class="panel">
      <h2>Two-factor sign-in (TOTP)</h2>
      <ErrorBanner error={error} />
      {enabled ? (
        <form onSubmit={(e) => run(e, disableTotp)} class="inline-form" aria-label="Turn off TOTP">
          <p>On.</p>
          {codeField}
          <button type="submit" class="danger">
            Turn off
          </button>
        </form>
      ) : setup ? (
        <form onSubmit={(e) => run(e, enableTotp)} aria-label="Turn on TOTP">
          <p>
            Add this key to your authenticator app, then enter the code it shows. Key: <code class="secret">{setup.secret}</code>
          </p>
          {codeField}
          <button type="submit" class="primary">
            Turn on
          </button>
        </form>
      ) : (
        <button
          type="button"
          onClick={async () => {
            setError(null);
            try {
              setSetup(await setUpTotp());
            } catch (err) {
              setError(err);
            }
          }}
        >
          Set up
        </button>
      )}
    </div>
  );
}

// Change one's own password: the current one, the new one twice. Every other session ends; this
// one continues (the server answers with its new cookies).
function PasswordChange({ onChanged }: { onChanged: () => void }) {
  const [current, setCurrent] = useState("");
  const [next, setNext] = useState("");
  const [again, setAgain] = useState("");
  const [done, setDone] = useState(false);
  const { busy, error, setError, submit } = useSubmit(async () => {
    setDone(false);
    if (next !== again) {
      setError(new Error("The two new passwords differ."));
      return;
    }
    await changeOwnPassword(current, next);
    setCurrent("");
    setNext("");
    setAgain("");
    setDone(true);
    onChanged();
  });
  const field = errorField(error);
  const inline = (name: string) =>
    field === name ? (
      <small class="bad-text" role="alert">
        {(error as Error).message}
      </small>
    ) : null;
  return (
    <form class="panel" onSubmit={submit} aria-label="Change password">
      <h2>Change password</h2>
      {done && <Notice>Password changed. Your other sessions have ended.</Notice>}
      {!field && <ErrorBanner error={error} />}
      <div class="grid">
        <Field label="Current password">
          {(id) => (
            <>
              <input id={id} type="password" autocomplete="current-password" required value={current} onInput={(e) => setCurrent((e.target as HTMLInputElement).value)} />
              {inline("current_password")}
            </>
          )}
        </Field>
        <Field label="New password" hint="8 to 72 characters">
          {(id) => (
            <>
              <input id={id} type="password" autocomplete="new-password" required minLength={8} value={next} onInput={(e) => setNext((e.target as HTMLInputElement).value)} />
              {inline("new_password")}
            </>
          )}
        </Field>
        <Field label="New password again">
          {(id) => <input id={id} type="password" autocomplete="new-password" required value={again} onInput={(e) => setAgain((e.target as HTMLInputElement).value)} />}
        </Field>
      </div>
      <button class="primary" type="submit" disabled={busy}>
        {busy ? "Changing…" : "Change password"}
      </button>
    </form>
  );
}

// One's live sessions: when each signed in and was last renewed; any other can be ended here.
function Sessions({ version }: { version: number }) {
  const list = useLoad(() => listOwnSessions(), [version]);
  return (
    <div class="panel">
      <h2>Sessions</h2>
      <ErrorBanner error={list.error} />
      {list.loading && !list.data && <Loading />}
      {list.data && (
        <div class="table-wrap">
          <table>
            <caption>Where you are signed in</caption>
            <thead>
              <tr>
                <th scope="col">Signed in</th>
                <th scope="col">Last renewed</th>
                <th scope="col">Ends unless renewed</th>
                <th scope="col">
                  <span class="visually-hidden">Action</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data.sessions.map((s) => (
                <tr key={s.id}>
                  <td>{formatTime(s.started_at)}</td>
                  <td>{formatTime(s.last_renewed_at)}</td>
                  <td>{formatTime(s.expires_at)}</td>
                  <td>{s.current ? <span class="muted">This session</span> : <ActionButton label="End" confirm="End this session?" run={() => endOwnSession(s.id)} onDone={list.reload} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}

export function ProfilePage() {
  const { me, profile, reload } = useSession();
  const [zone, setZone] = useState(profile.time_zone);
  const [language, setLanguage] = useState(profile.language);
  const [saved, setSaved] = useState(false);
  const [sessionsVersion, setSessionsVersion] = useState(0);
  const { error, submit: save } = useSubmit(async () => {
    setSaved(false);
    await updateProfile({ time_zone: zone, language });
    await reload();
    setSaved(true);
  });
  const all = zones();
  return (
    <section>
      <h1>Your profile</h1>
      <KeyValues
        rows={[
          ["Username", me.user.username],
          ["Org role", me.org_role],
          ["Times shown in", timeZone()],
        ]}
      />
      <form class="panel" onSubmit={save} aria-label="Preferences">
        {saved && <Notice>Saved.</Notice>}
        <ErrorBanner error={error} />
        <div class="grid">
          <Field label="Time zone" hint="IANA name, e.g. Europe/Berlin">
            {(id) => (
              <>
                <input id={id} list="zones" value={zone} onInput={(e) => setZone((e.target as HTMLInputElement).value)} />
                <datalist id="zones">
                  {all.map((z) => (
                    <option key={z} value={z} />
                  ))}
                </datalist>
              </>
            )}
          </Field>
          <Field label="Language" hint="BCP 47 tag, e.g. en, de-DE">
            {(id) => <input id={id} value={language} onInput={(e) => setLanguage((e.target as HTMLInputElement).value)} />}
          </Field>
        </div>
        <button class="primary" type="submit">
          Save
        </button>
      </form>
      {me.user.auth_source === "local" && <PasswordChange onChanged={() => setSessionsVersion((v) => v + 1)} />}
      <Sessions version={sessionsVersion} />
      {me.user.auth_source !== "oidc" && <Totp enabled={!!me.user.totp_enabled} onChange={reload} />}
    </section>
  );
}
