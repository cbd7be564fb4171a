// The licence: its status for everyone, activation for owners.
import { useState } from "preact/hooks";
import { activateLicense, licenseStatus } from "../api/license";
import type { LicenseStatus } from "../api/types";
import { ErrorBanner, Field, KeyValues, Loading, Notice } from "../components/ui";
import { formatTime } from "../lib/format";
import { useLoad, useSubmit } from "../lib/load";
import { useCan } from "../session";

// What the licence means now, and what to do about it.
function planWords(s: LicenseStatus): string {
  if (s.plan === "free") {
    return (
      "Without a licence the server runs on the free plan: one certificate across all projects, every other feature included. " +
      "An enterprise licence lifts the cap to its limit: an owner pastes the key below."
    );
  }
  if (s.in_grace_period) {
    return `The licence has expired and is in its grace period: everything keeps working for ${graceWords(s.grace_remaining_seconds)}, then the free plan's cap of one certificate applies to new certificates. Activate a renewed key before then.`;
  }
  return s.expires_at ? `The licence is valid until ${formatTime(s.expires_at)}; activate the renewed key before then.` : "The licence does not expire.";
}

function graceWords(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  if (days >= 1) return `${days} day${days === 1 ? "" : "s"}`;
  const hours = Math.max(1, Math.round(seconds / 3600));
  return `${hours} hour${hours === 1 ? "" : "s"}`;
}

export function License() {
  const can = useCan();
  const status = useLoad(() => licenseStatus(), []);
  const [key, setKey] = useState("");
  const [done, setDone] = useState(false);
  const { error, submit: activate } = useSubmit(async () => {
    setDone(false);
    await activateLicense(key.trim());
    setKey("");
    setDone(true);
    status.reload();
  });
  const s = status.data;
  return (
    <section>
      <h1>Licence</h1>
      <ErrorBanner error={status.error} />
      {!s ? (
        status.loading && <Loading />
      ) : (
        <>
          <div class="panel" role="status">
            <p>
              <strong>{s.plan === "enterprise" ? `Enterprise plan${s.plan_name ? ` (${s.plan_name})` : ""}` : "Free plan"}</strong>:{" "}
              {s.cert_limit === 0 ? `${s.certificates_used} certificates in use, no cap.` : `${s.certificates_used} of ${s.cert_limit} certificate${s.cert_limit === 1 ? "" : "s"} in use.`}
            </p>
            <p>{planWords(s)}</p>
          </div>
          <KeyValues
            rows={[
              ["Plan", s.plan],
              ["Certificates in use", String(s.certificates_used)],
              ["Certificate cap", s.cert_limit === 0 ? "none" : String(s.cert_limit)],
              ["Expires", formatTime(s.expires_at)],
              ["Grace period", s.in_grace_period ? `yes, ${graceWords(s.grace_remaining_seconds)} left` : "no"],
              ["Licence key", s.license_key || "—"],
              ["Activated", formatTime(s.activated_at)],
            ]}
          />
        </>
      )}
      {/* After the status (or its error): arriving above the form, it would push the form down. */}
      {(s || status.error) && can("activate_license") && (
        <form class="panel" onSubmit={activate} aria-label="Activate a licence">
          <h2>Activate</h2>
          {done && <Notice>The licence is active.</Notice>}
          <ErrorBanner error={error} />
          <Field label="Licence key">{(id) => <textarea id={id} rows={3} required value={key} onInput={(e) => setKey((e.target as HTMLTextAreaElement).value)} spellcheck={false} />}</Field>
          <button class="primary" type="submit">
            Activate
          </button>
        </form>
      )}
    </section>
  );
}
