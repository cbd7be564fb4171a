// A distribution of a certificate to a module's targets: its last outcome per target, and
// dry-run, execute and rollback for operators.
import { useState } from "preact/hooks";
import { api } from "../api/client";
import type { Distribution, Job, TargetResult } from "../api/types";
import { formatTime } from "../lib/format";
import { useCan } from "../session";
import { ActionButton, Badge, Link } from "./ui";

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
                {r.error_code && <code>{r.error_code}</code>} {r.error ?? r.detail ?? ""}
                {r.rollback_error && <div class="bad-text small">Rollback: {r.rollback_error}</div>}
                {r.steps?.map((s) => (
                  <div key={s.name} class="small">
                    {s.ok ? "✓" : "✗"} {s.name}: {s.message}
                  </div>
                ))}
              </td>
              <td>{r.duration_ms !== undefined ? `${r.duration_ms} ms` : ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function DistributionCard(props: { project: string; certificatePath: string; distribution: Distribution; onChange: () => void }) {
  const { project, certificatePath, distribution: d, onChange } = props;
  const can = useCan();
  const base = `${certificatePath}/distributions/${d.id}`;
  const [dryRun, setDryRun] = useState<{ ok: boolean; target_results: TargetResult[] } | null>(null);
  const [job, setJob] = useState<Job | null>(null);
  const operator = can("write_certificates", project);
  return (
    <article class="panel" aria-label={`Distribution ${d.id}`}>
      <p>
        Module <Link href={`/p/${project}/config/modules`}>{d.module_config_id}</Link> · last{" "}
        {d.last_action ?? "run"}: <Badge value={d.last_status} /> {formatTime(d.last_run_at)}
      </p>
      <p class="muted small">
        Deployed serial {d.deployed_serial ?? "—"} · previous {d.previous_serial ?? "—"}
      </p>
      {d.last_error && <p class="bad-text">{d.last_error}</p>}
      <TargetResults results={d.last_target_results ?? []} caption="Last run, per target" />
      {operator && (
        <div class="buttons">
          <ActionButton label="Dry run" run={() => api.post<{ ok: boolean; target_results: TargetResult[] }>(`${base}/dry-run`)} onDone={(r) => setDryRun(r as { ok: boolean; target_results: TargetResult[] })} />
          <ActionButton kind="primary" label="Execute" run={() => api.post<{ job: Job }>(`${base}/execute`)} onDone={(r) => { setJob((r as { job: Job }).job); onChange(); }} />
          <ActionButton label="Roll back" confirm="Restore the previous certificate on every target?" run={() => api.post<{ job: Job }>(`${base}/rollback`)} onDone={(r) => { setJob((r as { job: Job }).job); onChange(); }} />
          <ActionButton kind="danger" label="Remove" confirm="Stop distributing this certificate with this module?" run={() => api.del(base)} onDone={onChange} />
        </div>
      )}
      {job && (
        <p role="status">
          Queued: <Link href={`/p/${project}/jobs/${job.id}`}>{job.type.replace(/_/g, " ")}</Link>
        </p>
      )}
      {dryRun && <TargetResults results={dryRun.target_results} caption={dryRun.ok ? "Dry run: every target is ready" : "Dry run: some targets are not ready"} />}
    </article>
  );
}
