// The user's own settings: time zone and language (every time in the UI follows them),
// notification choices, and the TOTP second factor.
import { useState } from "preact/hooks";
import { disableTotp, enableTotp, setUpTotp, updateProfile } from "../api/auth";
import type { TotpSetup } from "../api/types";
import { ErrorBanner, Field, KeyValues, Notice } from "../components/ui";
import { timeZone } from "../lib/format";
import { useSubmit } from "../lib/load";
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

export function ProfilePage() {
  const { me, profile, reload } = useSession();
  const [zone, setZone] = useState(profile.time_zone);
  const [language, setLanguage] = useState(profile.language);
  const [saved, setSaved] = useState(false);
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
      {me.user.auth_source !== "oidc" && <Totp enabled={!!me.user.totp_enabled} onChange={reload} />}
    </section>
  );
}
