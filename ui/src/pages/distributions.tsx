// Every distribution of the project with its last outcome, paged by the server.
import { api } from "../api/client";
import type { Distribution, Paged } from "../api/types";
import { Badge, ErrorBanner, Link, Loading, Pager } from "../components/ui";
import { formatTime } from "../lib/format";
import { useLoad } from "../lib/load";
import { setQuery } from "../lib/router";

const pageSize = 25;

export function Distributions({ project, query }: { project: string; query: URLSearchParams }) {
  const page = Math.max(1, Number(query.get("page") ?? "1") || 1);
  const list = useLoad(() => api.get<{ distributions: Distribution[] } & Paged>(`/projects/${project}/distributions`, { page, page_size: pageSize }), [project, page]);
  return (
    <section>
      <h1>Distributions</h1>
      <p class="muted">Dry-run, execute and roll back from the certificate's page.</p>
      <ErrorBanner error={list.error} />
      {list.loading && !list.data && <Loading />}
      {list.data && (
        <>
          <div class="table-wrap">
            <table>
              <caption class="sr-only">Distributions</caption>
              <thead>
                <tr>
                  <th scope="col">Certificate</th>
                  <th scope="col">Module</th>
                  <th scope="col">Last</th>
                  <th scope="col">When</th>
                  <th scope="col">Error</th>
                </tr>
              </thead>
              <tbody>
                {list.data.distributions.map((d) => (
                  <tr key={d.id}>
                    <td>
                      <Link href={`/p/${project}/certificates/${d.certificate_id}`}>{d.certificate_id}</Link>
                    </td>
                    <td>{d.module_config_id}</td>
                    <td>
                      {d.last_action ?? ""} <Badge value={d.last_status} />
                    </td>
                    <td>{formatTime(d.last_run_at)}</td>
                    <td class="small">{d.last_error ?? ""}</td>
                  </tr>
                ))}
                {list.data.distributions.length === 0 && (
                  <tr>
                    <td colSpan={5} class="muted">
                      No distributions yet.
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
