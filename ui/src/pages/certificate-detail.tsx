// One certificate: every field, days left, renew and delete, downloads (with the key, encrypted
// under a password, for project admins), its jobs, events and distributions.
import { useId, useState } from "preact/hooks";
import { deleteCertificate, downloadCertificate, downloadCertificateWithKey, getCertificate, renewCertificate, updateCertificate } from "../api/certificates";
import { createDistribution, listCertificateDistributions, listModuleConfigs } from "../api/distributions";
import { listEvents } from "../api/events";
import { listJobs } from "../api/jobs";
import type { Certificate, CertificatePatch, DownloadRequest } from "../api/types";
import { DistributionCard, ModuleSelect } from "../components/distribution";
import { accountLabel, IssuerFields, type Issuers, PolicyViolations, profileFor, providerLabel, RenewalTiming, renewalOf, useIssuers } from "../components/issuers";
import { ActionButton, Badge, ErrorBanner, Field, FormButtons, KeyValues, Link, Loading } from "../components/ui";
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

// What may change after creation: renewal timing, automatic renewal, the issuers, profile and
// chain (a new preference starts from its first choice).
function EditCertificate({ project, c, issuers, onSaved, onCancel }: { project: string; c: Certificate; issuers: Issuers; onSaved: () => void; onCancel: () => void }) {
  const [renewal, setRenewal] = useState(() =>
    c.renew_at_fraction !== null && Math.abs(c.renew_at_fraction - 1 / 3) < 1e-6
      ? { by: "default", days: String(c.renewal_threshold_days), fraction: "33" }
      : c.renew_at_fraction !== null ? { by: "fraction", days: String(c.renewal_threshold_days), fraction: String(Math.round(c.renew_at_fraction * 100)) } : { by: "days", days: String(c.renewal_threshold_days), fraction: "33" },
  );
  const [autoRenew, setAutoRenew] = useState(c.auto_renew);
  const [accounts, setAccounts] = useState<string[]>(c.acme_account_ids.length ? c.acme_account_ids : c.acme_account_id ? [c.acme_account_id] : []);
  const [profile, setProfile] = useState(c.profile);
  const [chain, setChain] = useState(c.preferred_chain);
  // What the form opened with (the page reloads the certificate while a job runs): only what
  // changed from it is sent; the same preference sent again would start it afresh.
  const [initial] = useState(() => ({ renewal, accounts, autoRenew, profile, chain }));
  const autoRenewId = useId();
  const { busy, error, submit } = useSubmit(async () => {
    const change: CertificatePatch = {};
    const wanted = profileFor(accounts, profile);
    if (autoRenew !== initial.autoRenew) change.auto_renew = autoRenew;
    if (JSON.stringify(renewal) !== JSON.stringify(initial.renewal)) Object.assign(change, renewal.by === "default" ? { renew_at_fraction: 1 / 3 } : renewalOf(renewal));
    if (JSON.stringify(accounts) !== JSON.stringify(initial.accounts)) change.acme_account_ids = accounts;
    if (wanted !== initial.profile) change.profile = wanted;
    if (chain.trim() !== initial.chain) change.preferred_chain = chain.trim();
    if (Object.keys(change).length) await updateCertificate(project, c.id, change);
    onSaved();
  });
  return (
    <form class="panel" onSubmit={submit} aria-label="Change renewal and issuers">
      <h2>Renewal and issuers</h2>
      <ErrorBanner error={error} />
      <PolicyViolations error={error} />
      <div class="grid">
        <RenewalTiming value={renewal} onChange={setRenewal} />
        <div class="field checkbox">
          <input id={autoRenewId} type="checkbox" checked={autoRenew} onChange={(e) => setAutoRenew((e.target as HTMLInputElement).checked)} />
          <label for={autoRenewId}>Renew automatically</label>
        </div>
        <IssuerFields issuers={issuers} accounts={accounts} setAccounts={setAccounts} profile={profile} setProfile={setProfile} chain={chain} setChain={setChain} />
      </div>
      <FormButtons busy={busy} label="Save" onCancel={onCancel} />
    </form>
  );
}

// "with 33% of its lifetime left", or "30 days before expiry".
function renewalText(c: Certificate): string {
  return c.renew_at_fraction !== null ? `with ${Math.round(c.renew_at_fraction * 100)}% of its lifetime left` : `${c.renewal_threshold_days} days before expiry`;
}

export function CertificateDetail({ project, id }: { project: string; id: string }) {
  const can = useCan();
  const cert = useLoad(() => getCertificate(project, id), [project, id]);
  const jobs = useLoad(() => listJobs(project, { certificate_id: id, page_size: 10 }), [project, id]);
  const events = useLoad(() => listEvents(project, { page_size: 100 }), [project]);
  const distributions = useLoad(() => listCertificateDistributions(project, id), [project, id]);
  const issuers = useIssuers(project);
  const [editing, setEditing] = useState(false);
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
        {can("write_certificates", project) && !editing && (
          <button type="button" onClick={() => setEditing(true)}>
            Change renewal and issuers
          </button>
        )}
      </div>
      {editing && (
        <EditCertificate
          project={project}
          c={c}
          issuers={issuers}
          onCancel={() => setEditing(false)}
          onSaved={() => {
            setEditing(false);
            cert.reload();
          }}
        />
      )}
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
          ["Issuers, in order", c.acme_account_ids.length ? c.acme_account_ids.map((a) => accountLabel(issuers, a)).join(" → ") : c.acme_account_id ? accountLabel(issuers, c.acme_account_id) : "the project's default"],
          ["Issued through", issued ? accountLabel(issuers, c.issued_by_account_id) : "—"],
          ["CA provider", issued ? providerLabel(issuers, c.issued_by_provider_id) : "—"],
          ["Failed over", c.failover_account_id ? `to ${accountLabel(issuers, c.failover_account_id)} since ${formatTime(c.failover_at)}` : "no"],
          ["ACME profile", c.profile || "the CA's default"],
          ["Preferred chain", c.preferred_chain || "the CA's default"],
          ["Challenge", c.challenge === "http-01" ? (c.http01_module_config_id ? "HTTP-01 through a webroot" : "HTTP-01 answered by this server") : "DNS-01"],
          ["Renew", renewalText(c)],
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
