// The morning view of a project: certificates by status, what expires soon, failed renewals,
// recent failed jobs and distributions, and the expiry outlook for the next 13 weeks.
import { certificateSummary, listCertificates } from "../api/certificates";
import { listConfig, type ConfigKind } from "../api/configuration";
import { listDistributions } from "../api/distributions";
import { dismissJob, listJobs } from "../api/jobs";
import { certificateStatuses, type CertificateStatus } from "../api/types";
import { ActionButton, Badge, ErrorBanner, Link, Loading } from "../components/ui";
import { daysLeft, formatDate, formatDay, formatTime, humanize } from "../lib/format";
import { useLoad } from "../lib/load";
import { useCan } from "../session";

// The statuses of a certificate in service: a renewal pending or under way still serves the
// current version.
const inService: CertificateStatus[] = ["active", "renewal_pending", "renewal_in_progress"];
const renewing = (byStatus: Partial<Record<string, number>>) => (byStatus.renewal_pending ?? 0) + (byStatus.renewal_in_progress ?? 0);

// What the first-run checklist needs to know: how many of each kind of configuration the project
// has, and its distributions. Read with the counts, so the checklist is there from the first
// paint of the dashboard (arriving later, it would push the page down).
async function firstRunCounts(project: string): Promise<Record<string, number>> {
  const kinds: ConfigKind[] = ["acme-accounts", "dns-credentials", "zones", "modules", "notification-channels", "notification-rules"];
  const [totals, distributions] = await Promise.all([
    Promise.all(kinds.map(async (k) => [k, (await listConfig(project, k, { page_size: 1 })).total] as const)),
    listDistributions(project, { page_size: 1 }),
  ]);
  return { ...Object.fromEntries(totals), distributions: distributions.total };
}

// The first run of a project: the steps from nothing to a certificate delivered and watched,
// each ticked once done, each linking to where it is done. Shown until every step is done.
function FirstRun({ project, certificates, counts: n }: { project: string; certificates: number; counts: Record<string, number> }) {
  const base = `/p/${project}`;
  const steps: [string, boolean, string][] = [
    ["Add an ACME account (the CA to issue from)", (n["acme-accounts"] ?? 0) > 0, `${base}/config/acme-accounts`],
    ["Add a DNS credential (how the DNS-01 record is published)", (n["dns-credentials"] ?? 0) > 0, `${base}/config/dns-credentials`],
    ["Add a zone that uses it", (n.zones ?? 0) > 0, `${base}/config/zones`],
    ["Request a certificate", certificates > 0, `${base}/certificates`],
    ["Distribute it: a module, then a distribution on the certificate", (n.distributions ?? 0) > 0, (n.modules ?? 0) > 0 ? `${base}/certificates` : `${base}/config/modules`],
    ["Be notified: a channel, then a rule", (n["notification-channels"] ?? 0) > 0 && (n["notification-rules"] ?? 0) > 0, (n["notification-channels"] ?? 0) > 0 ? `${base}/config/notification-rules` : `${base}/config/notification-channels`],
  ];
  if (steps.every(([, done]) => done)) return null;
  return (
    <nav class="panel first-run" aria-label="Getting started">
      <h2>Getting started</h2>
      <ol class="plain-list">
        {steps.map(([label, done, href]) => (
          <li key={label} class={done ? "done" : ""}>
            <span aria-hidden="true">{done ? "✓" : "○"}</span> {done ? label : <Link href={href}>{label}</Link>}
            {done && <span class="visually-hidden"> (done)</span>}
          </li>
        ))}
      </ol>
    </nav>
  );
}

function ExpiryChart({ weeks }: { weeks: number[] }) {
  const max = Math.max(1, ...weeks);
  const width = 40;
  const height = 90;
  const total = weeks.reduce((a, b) => a + b, 0);
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${weeks.length * width} ${height + 20}`}
        role="img"
        aria-label={`Certificates expiring in each of the next ${weeks.length} weeks, from ${formatDay(new Date())}: ${weeks.join(", ")}`}
      >
        {weeks.map((n, i) => {
          const h = Math.round((n / max) * height);
          return (
            <g key={i}>
              <rect x={i * width + 3} y={height - h} width={width - 6} height={h} class="bar">
                <title>{`Week of ${formatDay(new Date(Date.now() + i * 7 * 86_400_000))}: ${n}`}</title>
              </rect>
              {i % 2 === 0 && (
                <text x={i * width + width / 2} y={height + 14} text-anchor="middle" class="axis">
                  {formatDay(new Date(Date.now() + i * 7 * 86_400_000))}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        Expiring per week over the next 91 days ({total} in all); each bar is the week starting on the date below it.
      </figcaption>
    </figure>
  );
}

// While the counts load: tiles and a chart frame of the final size, so nothing below moves when
// they arrive.
function DashboardSkeleton() {
  const tiles = (n: number) => (
    <div class="tiles" aria-hidden="true">
      {Array.from({ length: n }, (_, i) => (
        <div key={i} class="tile">
          <span class="tile-n">
            <span class="skeleton" />
          </span>
          <span class="skeleton short" />
        </div>
      ))}
    </div>
  );
  return (
    <div aria-busy="true">
      <Loading />
      {tiles(2 + certificateStatuses.length - inService.length)}
      <h2>Expiring</h2>
      {tiles(4)}
      <figure class="chart" aria-hidden="true">
        <div class="skeleton chart-frame" />
        <figcaption>&nbsp;</figcaption>
      </figure>
    </div>
  );
}

export function Dashboard({ project }: { project: string }) {
  const can = useCan();
  const summary = useLoad(() => certificateSummary(project), [project]);
  const firstRun = useLoad(() => firstRunCounts(project), [project]);
  // Failed (will retry) and dead (out of attempts) and not dismissed, newest first.
  const failedJobs = useLoad(async () => {
    const pages = await Promise.all(
      ["failed", "dead"].map((status) =>
        listJobs(project, { status, dismissed: "false", page_size: 5 }),
      ),
    );
    const jobs = pages.flatMap((p) => p.jobs).sort((a, b) => b.updated_at.localeCompare(a.updated_at));
    return { jobs: jobs.slice(0, 5) };
  }, [project]);
  const soonest = useLoad(
    () =>
      listCertificates(project, {
        expiring_within_days: 30,
        sort: "expires_at",
        order: "asc",
        page_size: 5,
      }),
    [project],
  );
  const distributions = useLoad(
    () => listDistributions(project, { page_size: 50 }),
    [project],
  );
  const base = `/p/${project}`;
  const c = summary.data?.certificates;
  const failedDistributions = (distributions.data?.distributions ?? []).filter(
    (d) => d.last_status === "failed" || d.last_status === "partial",
  );

  // The counts and the checklist's counts, both in (or the counts failed: their error shows, and
  // the lists below still do).
  const topReady = (c !== undefined && (firstRun.data !== undefined || Boolean(firstRun.error))) || Boolean(summary.error);
  return (
    <section>
      <h1>Dashboard</h1>
      <ErrorBanner error={summary.error} />
      {!c || !topReady ? (
        !summary.error && <DashboardSkeleton />
      ) : (
        <>
          {firstRun.data && <FirstRun project={project} certificates={c.total} counts={firstRun.data} />}
          <div class="tiles">
            <Link class="tile" href={`${base}/certificates`}>
              <span class="tile-n">{c.total}</span> {c.total === 1 ? "certificate" : "certificates"}
            </Link>
            {/* In service: active, renewals pending or under way included (they serve meanwhile). */}
            <Link class="tile" href={`${base}/certificates?status=${inService.join(",")}`}>
              <span class="tile-n">{inService.reduce((n, s) => n + (c.by_status[s] ?? 0), 0)}</span> active
              {renewing(c.by_status) > 0 && <span class="muted small"> ({renewing(c.by_status)} renewing)</span>}
            </Link>
            {certificateStatuses
              .filter((s) => !inService.includes(s))
              .map((s) => (
                <Link key={s} class={`tile ${s === "renewal_failed" && (c.by_status[s] ?? 0) > 0 ? "alert" : ""}`} href={`${base}/certificates?status=${s}`}>
                  <span class="tile-n">{c.by_status[s] ?? 0}</span> {humanize(s)}
                </Link>
              ))}
          </div>
          <h2>Expiring</h2>
          <div class="tiles">
            <Link class={`tile ${c.expired > 0 ? "alert" : ""}`} href={`${base}/certificates?expiring=0`}>
              <span class="tile-n">{c.expired}</span> expired
            </Link>
            {(["7", "14", "30"] as const).map((d) => (
              <Link key={d} class="tile" href={`${base}/certificates?expiring=${d}`}>
                <span class="tile-n">{c.expiring_within_days[d] ?? 0}</span> within {d} days
              </Link>
            ))}
          </div>
          <ExpiryChart weeks={c.expiring_by_week} />
        </>
      )}

      {/* Below the counts once they are in: while the skeleton stands in for them, a checklist
          taller than it would push these lists down. */}
      {topReady && <div class="columns">
        <div>
          <h2>Expiring first</h2>
          <ErrorBanner error={soonest.error} />
          {soonest.data && soonest.data.certificates.length === 0 && <p class="muted">Nothing expires within 30 days.</p>}
          <ul class="plain-list">
            {soonest.data?.certificates.map((cert) => (
              <li key={cert.id}>
                <Link href={`${base}/certificates/${cert.id}`}>{cert.common_name}</Link>{" "}
                <span class="muted">
                  {formatDate(cert.expires_at)} ({daysLeft(cert.expires_at)} days)
                </span>
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h2>Recent failed jobs</h2>
          <ErrorBanner error={failedJobs.error} />
          {failedJobs.data && failedJobs.data.jobs.length === 0 && <p class="muted">No failed jobs.</p>}
          <ul class="plain-list">
            {failedJobs.data?.jobs.map((j) => (
              <li key={j.id}>
                <Link href={`${base}/jobs/${j.id}`}>{humanize(j.type)}</Link>
                {j.certificate_name && <> of <Link href={`${base}/certificates/${j.certificate_id}`}>{j.certificate_name}</Link></>} <Badge value={j.status} />{" "}
                <span class="muted">{formatTime(j.updated_at)}</span>
                {j.error_msg && <div class="muted small">{j.error_msg}</div>}
                {j.status === "dead" && can("cancel_job", project) && (
                  <ActionButton label="Dismiss" run={() => dismissJob(project, j.id)} onDone={failedJobs.reload} />
                )}
              </li>
            ))}
          </ul>
        </div>
        <div>
          <h2>Failed distributions</h2>
          <ErrorBanner error={distributions.error} />
          {distributions.data && failedDistributions.length === 0 && <p class="muted">No failed distributions.</p>}
          <ul class="plain-list">
            {failedDistributions.slice(0, 5).map((d) => (
              <li key={d.id}>
                <Link href={`${base}/certificates/${d.certificate_id}`}>{d.certificate_name ?? "certificate"}</Link> with {d.module_name ?? "a deleted module"} <Badge value={d.last_status} />{" "}
                <span class="muted">{formatTime(d.last_run_at)}</span>
                {d.last_error && <div class="muted small">{d.last_error}</div>}
              </li>
            ))}
          </ul>
        </div>
      </div>}
    </section>
  );
}
