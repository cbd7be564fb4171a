// The project's jobs, newest first, filtered by status and type, paged by the server.
import { listJobs } from "../api/jobs";
import { everyValue, type Job } from "../api/types";
import { PagedTable } from "../components/table";
import { Badge, Link, SelectField } from "../components/ui";
import { formatTime, humanize } from "../lib/format";
import { useFollow, useLoad } from "../lib/load";
import { setQuery } from "../lib/router";

const pageSize = 25;
export const jobStatuses = everyValue<Job["status"]>()(["pending", "active", "completed", "failed", "dead", "cancelled"]);
export const jobTypes = everyValue<Job["type"]>()([
  "issue_certificate",
  "renew_certificate",
  "msca_renew_certificate",
  "cleanup_dns",
  "certificate_expiration_check",
  "distribution_execute",
  "distribution_rollback",
  "notification_delivery",
  "check_renewal_info",
]);

export function Jobs({ project, query }: { project: string; query: URLSearchParams }) {
  const status = query.get("status") ?? "";
  const type = query.get("type") ?? "";
  const page = Math.max(1, Number(query.get("page") ?? "1") || 1);
  const list = useLoad(
    () => listJobs(project, { status, type, page, page_size: pageSize }),
    [project, status, type, page],
  );
  // Refreshed while a job on the page runs, or is due within two minutes (a pending job, or a
  // failed one waiting for its retry); a retry hours away is not waited for here.
  const soon = Date.now() + 120_000;
  const moving = (list.data?.jobs ?? []).some(
    (j) => j.status === "active" || ((j.status === "pending" || j.status === "failed") && new Date(j.next_run_at ?? 0).getTime() <= soon),
  );
  useFollow(moving, list.reload, `${project}/${status}/${type}/${page}`);
  return (
    <section>
      <h1>Jobs</h1>
      <form class="filters" onSubmit={(e) => e.preventDefault()}>
        <SelectField label="Status" value={status} options={[["", "Any"], ...jobStatuses]} onChange={(v) => setQuery({ status: v, page: undefined })} />
        <SelectField label="Type" value={type} options={[["", "Any"], ...jobTypes]} onChange={(v) => setQuery({ type: v, page: undefined })} />
      </form>
      <PagedTable
        caption="Jobs"
        list={list}
        rows={(d) => d.jobs}
        rowKey={(j) => j.id}
        empty="No jobs match."
        onPage={(p) => setQuery({ page: p }, false)}
        columns={[
          { header: "Job", cell: (j) => <Link href={`/p/${project}/jobs/${j.id}`}>{humanize(j.type)}</Link> },
          { header: "Certificate", cell: (j) => (j.certificate_id && j.certificate_name ? <Link href={`/p/${project}/certificates/${j.certificate_id}`}>{j.certificate_name}</Link> : "") },
          { header: "Status", cell: (j) => <Badge value={j.status} /> },
          { header: "Attempts", cell: (j) => `${j.attempts}/${j.max_attempts}` },
          { header: "Created", cell: (j) => formatTime(j.created_at) },
          { header: "Error", cell: (j) => j.error_msg ?? "", class: "small" },
        ]}
      />
    </section>
  );
}
