// A distribution of a certificate to a module's targets: its last outcome per target, and
// dry-run, execute and rollback for operators.
import { useState } from "preact/hooks";
import { deleteDistribution, dryRunDistribution, executeDistribution, rollbackDistribution } from "../api/distributions";
import { getJob } from "../api/jobs";
import type { Distribution, DryRun, Job, JobResponse, ModuleConfig, TargetResult } from "../api/types";
import { formatTime } from "../lib/format";
import { useFollow } from "../lib/load";
import { useCan } from "../session";
import { ActionButton, Badge, Field, Link } from "./ui";

// A distribution module picked by name (and kind), for a new distribution of one certificate or
// of several.
export function ModuleSelect({ label, modules, value, onChange }: { label: string; modules: ModuleConfig[]; value: string; onChange: (id: string) => void }) {
  return (
    <Field label={label}>
      {(id) => (
        <select id={id} value={value} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
          <option value="">Choose…</option>
          {modules.map((m) => (
            <option key={m.id} value={m.id}>
              {m.name} ({String(m.module)})
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

export function TargetResults({ results, caption }: { results: TargetResult[]; caption: string }) {
  if (results.length === 0) return null;
  return (
    <div class="table-wrap">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Target</th>
            <th scope="col">Result</th>
            <th scope="col">Error</th>
            <th scope="col">Took</th>
          </tr>
        </thead>
        <tbody>
          {results.map((r) => (
            <tr key={r.target_name}>
              <td>{r.target_name}</td>
              <td>
                <Badge value={r.status} />
                {r.rolled_back !== undefined && r.rolled_back && <span class="muted small"> rolled back</span>}
              </td>
              <td>
                {r.error_code && <code>{r.error_code}</code>} {r.error}
                {r.rollback_error && <div class="bad-text small">Rollback: {r.rollback_error}</div>}
              </td>
              <td>{r.duration_ms !== undefined ? `${r.duration_ms} ms` : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// What an execute would do, per target: each file created, replaced or left unchanged, and the
// command it would run (or the request it would send), as the dry run found them.
export function DryRunPlan({ dryRun }: { dryRun: DryRun }) {
  return (
    <div class="plan" role="status">
      <h3>{dryRun.ok ? "Dry run: every target is ready" : "Dry run: some targets are not ready"}</h3>
      {dryRun.target_results.map((r) => (
        <section key={r.target_name} aria-label={`Plan for ${r.target_name}`}>
          <h4>
            {r.target_name} <Badge value={r.status} />
          </h4>
          {r.error && (
            <p class="bad-text">
              {r.error_code && <code>{r.error_code}</code>} {r.error}
            </p>
          )}
          {r.changes.length > 0 ? (
            <ul class="plain-list">
              {r.changes.map((c) => (
                <li key={c.what}>
                  <Badge value={c.action} /> <code>{c.what.startsWith("reload: ") ? c.what.slice("reload: ".length) : c.what}</code>
                  {c.what.startsWith("reload: ") && <span class="muted small"> (reload command)</span>}
                </li>
              ))}
            </ul>
          ) : (
            !r.error && <p class="muted">Nothing would change.</p>
          )}
        </section>
      ))}
    </div>
  );
}

// A job that will not move again by itself (failed jobs are retried).
const settled = (j: Job) => j.status === "completed" || j.status === "dead" || j.status === "cancelled";

export function DistributionCard(props: { project: string; certificate: string; distribution: Distribution; onChange: () => void }) {
  const { project, certificate, distribution: d, onChange } = props;
  const can = useCan();
  const [dryRun, setDryRun] = useState<DryRun | null>(null);
  const [job, setJob] = useState<Job | null>(null);
  const operator = can("write_certificates", project);
  // After execute or rollback the card follows its job, and the distribution with it, until
  // the job settles; then the list is read once more.
  const following = job !== null && !settled(job);
  useFollow(following, () => {
    if (!job) return;
    getJob(project, job.id).then(
      (r) => {
        setJob(r.job);
        onChange();
      },
      () => undefined, // a failed read is retried at the next tick
    );
  }, job?.id ?? null);
  return (
    <article class="panel" aria-label={`Distribution ${d.id}`}>
      <p>
        Module <Link href={`/p/${project}/config/modules`}>{d.module_name ?? d.module_config_id}</Link> · last{" "}
        {d.last_action ?? "run"}: <Badge value={d.last_status} /> {formatTime(d.last_run_at)}
      </p>
      <p class="muted small">
        Deployed serial {d.deployed_serial ?? "—"} · previous {d.previous_serial ?? "—"}
      </p>
      {d.last_error && <p class="bad-text">{d.last_error}</p>}
      <TargetResults results={d.last_target_results ?? []} caption="Last run, per target" />
      {operator && (
        <div class="buttons">
          <ActionButton label="Dry run" run={() => dryRunDistribution(project, certificate, d.id)} onDone={(r) => setDryRun(r as DryRun)} />
          <ActionButton kind="primary" label="Execute" run={() => executeDistribution(project, certificate, d.id)} onDone={(r) => { setJob((r as JobResponse).job); onChange(); }} />
          <ActionButton label="Roll back" confirm="Restore the previous certificate on every target?" run={() => rollbackDistribution(project, certificate, d.id)} onDone={(r) => { setJob((r as JobResponse).job); onChange(); }} />
          <ActionButton kind="danger" label="Remove" confirm="Stop distributing this certificate with this module?" run={() => deleteDistribution(project, certificate, d.id)} onDone={onChange} />
        </div>
      )}
      {job && (
        <p role="status">
          {settled(job) ? "Done" : "Running"}: <Link href={`/p/${project}/jobs/${job.id}`}>{job.type.replace(/_/g, " ")}</Link> <Badge value={job.status} />
        </p>
      )}
      {dryRun && <DryRunPlan dryRun={dryRun} />}
    </article>
  );
}
