// The project's jobs, newest first, filtered by status and type, paged by the server.
import { api } from "../api/client";
import type { Job, Paged } from "../api/types";
import { Badge, ErrorBanner, Field, Link, Loading, Pager } from "../components/ui";
import { formatTime, humanize } from "../lib/format";
import { useLoad } from "../lib/load";
import { setQuery } from "../lib/router";

const pageSize = 25;
export const jobStatuses = ["pending", "active", "completed", "failed", "dead", "cancelled"];
export const jobTypes = [
  "issue_certificate",
  "renew_certificate",
  "msca_renew_certificate",
  "cleanup_dns",
  "certificate_expiration_check",
  "distribution_execute",
  "distribution_rollback",
  "notification_delivery",
];

export function Jobs({ project, query }: { project: string; query: URLSearchParams }) {
  const status = query.get("status") ?? "";
  const type = query.get("type") ?? "";
  const page = Math.max(1, Number(query.get("page") ?? "1") || 1);
  const list = useLoad(
    () => api.get<{ jobs: Job[] } & Paged>(`/projects/${project}/jobs`, { status, type, page, page_size: pageSize }),
    [project, status, type, page],
  );
  return (
    <section>
      <h1>Jobs</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <Field label="Status">
          {(id) => (
            <select id={id} value={status} onChange={(e) => setQuery({ status: (e.target as HTMLSelectElement).value, page: undefined })}>
              <option value="">Any</option>
              {jobStatuses.map((s) => (
                <option key={s} value={s}>
                  {humanize(s)}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Type">
          {(id) => (
            <select id={id} value={type} onChange={(e) => setQuery({ type: (e.target as HTMLSelectElement).value, page: undefined })}>
              <option value="">Any</option>
              {jobTypes.map((t) => (
                <option key={t} value={t}>
                  {humanize(t)}
                </option>
              ))}
            </select>
          )}
        </Field>
      </form>
      <ErrorBanner error={list.error} />
      {list.loading && !list.data && <Loading />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table>
              <caption class="sr-only">Jobs</caption>
              <thead>
                <tr>
                  <th scope="col">Job</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Created</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {list.data.jobs.map((j) => (
                  <tr key={j.id}>
                    <td>
                      <Link href={`/p/${project}/jobs/${j.id}`}>{humanize(j.type)}</Link>
                    </td>
                    <td>
                      <Badge value={j.status} />
                    </td>
                    <td>
                      {j.attempts}/{j.max_attempts}
                    </td>
                    <td>{formatTime(j.created_at)}</td>
                    <td class="small">{j.error_msg ?? ""}</td>
                  </tr>
                ))}
                {list.data.jobs.length === 0 && (
                  <tr>
                    <td colSpan={5} class="muted">
                      No jobs match.
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          <Pager page={page} pageSize={pageSize} total={list.data.total} onPage={(p) => setQuery({ page: p }, false)} />
        </>
      )}
    </section>
  );
}
