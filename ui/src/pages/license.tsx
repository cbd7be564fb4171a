// The licence: its status for everyone, activation for owners.
import { useState } from "preact/hooks";
import { activateLicense, licenseStatus } from "../api/license";
import { ErrorBanner, Field, KeyValues, Loading, Notice } from "../components/ui";
import { formatTime } from "../lib/format";
import { useLoad, useSubmit } from "../lib/load";
import { useCan } from "../session";

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
        <KeyValues
          rows={Object.entries(s).map(([k, v]) => [k.replace(/_/g, " "), typeof v === "string" && /_at$/.test(k) ? formatTime(v) : v === null ? "—" : String(v)])}
        />
      )}
      {can("activate_license") && (
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
