// Every distribution of the project with its last outcome, paged by the server.
import { listDistributions } from "../api/distributions";
import { PagedTable } from "../components/table";
import { Badge, Link } from "../components/ui";
import { formatTime } from "../lib/format";
import { useFollow, useLoad } from "../lib/load";
import { setQuery } from "../lib/router";

const pageSize = 25;

export function Distributions({ project, query }: { project: string; query: URLSearchParams }) {
  const page = Math.max(1, Number(query.get("page") ?? "1") || 1);
  const list = useLoad(() => listDistributions(project, { page, page_size: pageSize }), [project, page]);
  // Refreshed while a delivery on the page is still running.
  useFollow((list.data?.distributions ?? []).some((d) => d.last_status === "in_progress"), list.reload, `${project}/${page}`);
  return (
    <section>
      <h1>Distributions</h1>
      <p class="muted">Dry-run, execute and roll back from the certificate's page.</p>
      <PagedTable
        caption="Distributions"
        list={list}
        rows={(d) => d.distributions}
        rowKey={(d) => d.id}
        empty="No distributions yet."
        onPage={(p) => setQuery({ page: p }, false)}
        columns={[
          { header: "Certificate", cell: (d) => <Link href={`/p/${project}/certificates/${d.certificate_id}`}>{d.certificate_name ?? "(deleted certificate)"}</Link> },
          { header: "Module", cell: (d) => <Link href={`/p/${project}/config/modules`}>{d.module_name ?? "(deleted module)"}</Link> },
          {
            header: "Last",
            cell: (d) => (
              <>
                {d.last_action ?? ""} <Badge value={d.last_status} />
              </>
            ),
          },
          { header: "When", cell: (d) => formatTime(d.last_run_at) },
          { header: "Error", cell: (d) => d.last_error ?? "", class: "small" },
        ]}
      />
    </section>
  );
}
