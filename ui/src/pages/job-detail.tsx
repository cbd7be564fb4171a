// One job: its fields, retry and cancel, and its log, which follows the job while it runs.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { cancelJob, getJob, readJobLog, retryJob } from "../api/jobs";
import type { JobLogEntry } from "../api/types";
import { ActionButton, Badge, ErrorBanner, KeyValues, Link, Loading } from "../components/ui";
import { formatTime, humanize } from "../lib/format";
import { useLoad, usePoll } from "../lib/load";
import { useCan } from "../session";

// The log in write order, read with the list's cursor: each call returns what was written
// since the last one, so a growing log is followed without skipping or repeating a line.
function useJobLog(project: string, id: string) {
  const job = `${project}/${id}`; // whose log the state is
  const [lines, setLines] = useState<JobLogEntry[]>([]);
  const [error, setError] = useState<unknown>(null);
  const state = useRef<{ job: string; cursor: string | undefined; busy: boolean }>({ job, cursor: undefined, busy: false });
  const more = useCallback(async () => {
    const s = state.current;
    if (s.busy || s.job !== job) return;
    s.busy = true;
    try {
      for (let i = 0; i < 20; i++) {  // bounded: at most 20 reads of 500 lines per tick
        const answer = await readJobLog(project, id, { limit: 500, cursor: s.cursor });
        if (state.current !== s) return;  // another job's page took over meanwhile
        if (answer.logs.length) setLines((l) => [...l, ...answer.logs]);
        s.cursor = answer.next_cursor;
        if (!answer.has_more) break;
      }
      setError(null);
    } catch (e) {
      if (state.current === s) setError(e);
    } finally {
      s.busy = false;
    }
  }, [job]);
  useEffect(() => {
    state.current = { job, cursor: undefined, busy: false };
    setLines([]);
    void more();
  }, [more]);
  return { lines, error, more };
}

export function JobDetail({ project, id }: { project: string; id: string }) {
  const can = useCan();
  const job = useLoad(() => getJob(project, id), [project, id]);
  const log = useJobLog(project, id);
  const j = job.data?.job;
  const running = !!j && (j.status === "pending" || j.status === "active");
  usePoll(running, 1500, () => {
    job.reload();
    void log.more();
  });
  // One last read when the job finishes, so the final lines show.
  const wasRunning = useRef(false);
  useEffect(() => {
    if (wasRunning.current && !running) void log.more();
    wasRunning.current = running;
  }, [running]);

  if (job.error) return <ErrorBanner error={job.error} />;
  if (!j) return <Loading />;
  const finished = ["completed", "dead", "cancelled"].includes(j.status);
  return (
    <section>
      <p>
        <Link href={`/p/${project}/jobs`}>← Jobs</Link>
      </p>
      <div class="heading">
        <h1>{humanize(j.type)}</h1>
        <Badge value={j.status} />
      </div>
      {j.error_msg && (
        <div class="banner error" role="alert">
          {j.error_msg}
        </div>
      )}
      <div class="buttons">
        {can("retry_job", project) && (j.status === "failed" || j.status === "dead" || j.status === "cancelled") && (
          <ActionButton kind="primary" label="Retry" run={() => retryJob(project, id)} onDone={job.reload} />
        )}
        {can("cancel_job", project) && !finished && !j.cancel_requested && (
          <ActionButton kind="danger" label="Cancel" confirm="Cancel this job?" run={() => cancelJob(project, id)} onDone={job.reload} />
        )}
      </div>
      <KeyValues
        rows={[
          ["Attempts", `${j.attempts} of ${j.max_attempts}`],
          ["Lane", j.lane],
          ["Certificate", j.certificate_id ? (j.certificate_name ? <Link href={`/p/${project}/certificates/${j.certificate_id}`}>{j.certificate_name}</Link> : "(deleted)") : "—"],
          ["Parent job", j.parent_id ? <Link href={`/p/${project}/jobs/${j.parent_id}`}>{j.parent_id}</Link> : "—"],
          ["Created", formatTime(j.created_at)],
          ["Next run", formatTime(j.next_run_at)],
          ["Finished", formatTime(j.finished_at)],
          ["Cancel requested", j.cancel_requested ? "yes" : "no"],
        ]}
      />
      <h2>Log {running && <span class="muted small">(updating)</span>}</h2>
      <ErrorBanner error={log.error} />
      <ol class="log" aria-live="polite" aria-label="Job log">
        {log.lines.map((l, i) => (
          <li key={i} class={`log-${l.level}`}>
            <time>{formatTime(l.ts)}</time> <span class="level">{l.level}</span> {l.message}
          </li>
        ))}
        {log.lines.length === 0 && <li class="muted">No log lines yet.</li>}
      </ol>
    </section>
  );
}
