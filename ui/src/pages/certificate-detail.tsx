// One certificate: every field, days left, renew and delete, downloads (with the key, encrypted
// under a password, for project admins), its jobs, events and distributions.
import { useState } from "preact/hooks";
import { deleteCertificate, downloadCertificate, downloadCertificateWithKey, getCertificate, renewCertificate } from "../api/certificates";
import { createDistribution, listCertificateDistributions, listModuleConfigs } from "../api/distributions";
import { listEvents } from "../api/events";
import { listJobs } from "../api/jobs";
import type { DownloadRequest } from "../api/types";
import { DistributionCard, ModuleSelect } from "../components/distribution";
import { ActionButton, Badge, ErrorBanner, Field, KeyValues, Link, Loading } from "../components/ui";
import { daysLeft, formatTime, humanize } from "../lib/format";
import { download } from "../lib/download";
import { useLoad, usePoll, useSubmit } from "../lib/load";
import { navigate } from "../lib/router";
import { useCan } from "../session";
import { allPages, type PageQuery } from "../api/all-pages";

const busyStatuses = ["issuing", "renewal_pending", "renewal_in_progress"];

function KeyDownload({ project, id }: { project: string; id: string }) {
  const [format, setFormat] = useState<NonNullable<DownloadRequest["format"]>>("pkcs12");
  const [password, setPassword] = useState("");
  const { busy, error, submit } = useSubmit(async () => {
    await download(downloadCertificateWithKey(project, id, { format, include_private_key: true, password }), `certificate.${format === "pkcs12" ? "p12" : format}`);
    setPassword("");
  });
  return (
    <form class="inline-form" onSubmit={submit} aria-label="Download with the private key">
      <Field label="Format">
        {(id) => (
          <select id={id} value={format} onChange={(e) => setFormat((e.target as HTMLSelectElement).value as typeof format)}>
            <option value="pkcs12">PKCS#12 (.p12)</option>
            <option value="pem">PEM with encrypted key</option>
            <option value="zip">ZIP with encrypted key</option>
          </select>
        )}
      </Field>
      <Field label="Password for the key" hint="8 characters or more; you need it to open the file">
        {(id) => (
          <input id={id} type="password" autocomplete="new-password" minLength={8} required value={password} onInput={(e) => setPassword((e.target as HTMLInputElement).value)} />
        )}
      </Field>
      <button type="submit" disabled={busy}>
        {busy ? "Preparing…" : "Download with key"}
      </button>
      <ErrorBanner error={error} />
    </form>
  );
}

function AddDistribution({ project, certificate, onAdded }: { project: string; certificate: string; onAdded: () => void }) {
  const modules = useLoad(() => allPages((q: PageQuery) => listModuleConfigs(project, q), "modules"), [project]);
  const [module, setModule] = useState("");
  if (modules.error) return <ErrorBanner error={modules.error} />;
  if (!modules.data) return null;
  if (modules.data.modules.length === 0) {
    return (
      <p class="muted">
        No distribution module is configured. <Link href={`/p/${project}/config/modules`}>Configure one</Link>.
      </p>
    );
  }
  return (
    <div class="inline-form">
      <ModuleSelect label="Distribute with module" modules={modules.data.modules} value={module} onChange={setModule} />
      <ActionButton label="Add distribution" run={() => createDistribution(project, certificate, module)} onDone={onAdded} />
    </div>
  );
}

export function CertificateDetail({ project, id }: { project: string; id: string }) {
  const can = useCan();
  const cert = useLoad(() => getCertificate(project, id), [project, id]);
  const jobs = useLoad(() => listJobs(project, { certificate_id: id, page_size: 10 }), [project, id]);
  const events = useLoad(() => listEvents(project, { page_size: 100 }), [project]);
  const distributions = useLoad(() => listCertificateDistributions(project, id), [project, id]);
  const c = cert.data?.certificate;
  // Followed while a job of it can still move it on (an issuance out of attempts leaves the
  // certificate `issuing` for good: nothing to wait for then).
  const working =
    !!c && busyStatuses.includes(c.status) && (jobs.data?.jobs ?? []).some((j) => j.status === "pending" || j.status === "active" || j.status === "failed");
  usePoll(working, 2000, () => {
    cert.reload();
    jobs.reload();
  });

  if (cert.error) return <ErrorBanner error={cert.error} />;
  if (!c) return <Loading />;
  const left = daysLeft(c.expires_at);
  const issued = !!c.serial_number;
  const myEvents = (events.data?.events ?? []).filter((e) => e.resource_id === id);

  return (
    <section>
      <p>
        <Link href={`/p/${project}/certificates`}>← Certificates</Link>
      </p>
      <div class="heading">
        <h1>{c.common_name}</h1>
        <Badge value={c.status} />
      </div>
      {c.last_error && (
        <div class="banner error" role="alert">
          Last error: {c.last_error}
        </div>
      )}
      <div class="buttons">
        {can("write_certificates", project) && (
          <ActionButton
            kind="primary"
            label="Renew now"
            run={() => renewCertificate(project, id)}
            onDone={() => {
              cert.reload();
              jobs.reload();
            }}
          />
        )}
        {can("delete_certificates", project) && (
          <ActionButton
            kind="danger"
            label="Delete"
            confirm={`Delete ${c.common_name}? Its key and issued material are removed.`}
            run={() => deleteCertificate(project, id)}
            onDone={() => navigate(`/p/${project}/certificates`)}
          />
        )}
      </div>
      <KeyValues
        rows={[
          ["Names", c.sans.join(", ")],
          ["Days left", left === null ? "—" : <span class={left < 7 ? "bad-text" : ""}>{left}</span>],
          ["Expires", formatTime(c.expires_at)],
          ["Issued", formatTime(c.issued_at)],
          ["Next renewal", formatTime(c.next_renewal_at)],
          ["Serial number", c.serial_number ?? "—"],
          ["Key type", humanize(c.key_type)],
          ["Issuer", c.issuer_type],
          ["Challenge", c.challenge === "http-01" ? (c.http01_module_config_id ? "HTTP-01 through a webroot" : "HTTP-01 answered by this server") : "DNS-01"],
          ["Renew before expiry", `${c.renewal_threshold_days} days`],
          ["Automatic renewal", c.auto_renew ? "on" : "off"],
          ["Renewal attempts", String(c.renewal_attempts)],
          ["Distribution pending", c.distribution_pending ? "yes" : "no"],
          ["Created", formatTime(c.created_at)],
          ["Updated", formatTime(c.updated_at)],
          ["Id", <code>{c.id}</code>],
        ]}
      />

      <h2>Download</h2>
      {issued ? (
        <>
          <div class="buttons">
            <ActionButton label="Certificate and chain (PEM)" run={() => download(downloadCertificate(project, id, "pem"), "certificate.pem")} />
            <ActionButton label="ZIP (cert, chain, full chain)" run={() => download(downloadCertificate(project, id, "zip"), "certificate.zip")} />
          </div>
          {can("export_private_key", project) && <KeyDownload project={project} id={id} />}
        </>
      ) : (
        <p class="muted">Nothing has been issued yet.</p>
      )}

      <h2>Jobs</h2>
      <ErrorBanner error={jobs.error} />
      <ul class="plain-list">
        {jobs.data?.jobs.map((j) => (
          <li key={j.id}>
            <Link href={`/p/${project}/jobs/${j.id}`}>{humanize(j.type)}</Link> <Badge value={j.status} />{" "}
            <span class="muted">{formatTime(j.created_at)}</span>
            {j.error_msg && <div class="muted small">{j.error_msg}</div>}
          </li>
        ))}
        {jobs.data?.jobs.length === 0 && <li class="muted">No jobs.</li>}
      </ul>

      <h2>Distributions</h2>
      <ErrorBanner error={distributions.error} />
      {distributions.data?.map((d) => (
        <DistributionCard key={d.id} project={project} certificate={id} distribution={d} onChange={distributions.reload} />
      ))}
      {distributions.data?.length === 0 && <p class="muted">This certificate is not distributed anywhere.</p>}
      {can("write_certificates", project) && <AddDistribution project={project} certificate={id} onAdded={distributions.reload} />}

      <h2>Recent events</h2>
      <ErrorBanner error={events.error} />
      <ul class="plain-list">
        {myEvents.map((e) => (
          <li key={e.id}>
            <Badge value={e.kind} /> {e.message} <span class="muted">{formatTime(e.at)}</span>
          </li>
        ))}
        {events.data && myEvents.length === 0 && <li class="muted">No recent events for this certificate.</li>}
      </ul>
    </section>
  );
}
