// A page of a list read from the server: its error, a loading note, the table with a caption
// and column headers, a row for "nothing here", and the pager.
import type { ComponentChildren } from "preact";
import type { Paged } from "../api/types";
import type { Loaded } from "../lib/load";
import { ErrorBanner, Loading, Pager } from "./ui";

export interface Column<T> {
  header: string; // shown; also the accessible name of the column
  cell: (row: T) => ComponentChildren;
  class?: string | ((row: T) => string);
}

// While the first page loads: the table's frame with placeholder rows of a row's height, so the
// page does not jump when the rows arrive (docs/ui.md, Live state).
function TableSkeleton({ columns, caption }: { columns: string[]; caption: string }) {
  return (
    <div class="table-wrap" aria-busy="true">
      <Loading />
      <table class="skeleton-table" aria-hidden="true">
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((h) => (
              <th scope="col" key={h}>
                {h}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {Array.from({ length: 5 }, (_, i) => (
            <tr key={i}>
              {columns.map((h) => (
                <td key={h}>
                  <span class="skeleton" />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

// `list`: the page as read (its rows picked by `rows`), with its error and loading state.
export function PagedTable<T, D extends Paged>(props: {
  caption: string;
  columns: Column<T>[];
  list: Loaded<D>;
  rows: (data: D) => T[];
  rowKey: (row: T) => string;
  empty: string;
  onPage: (page: number) => void;
}) {
  const { list, columns } = props;
  const paged = list.data;
  const rows = paged && props.rows(paged);
  return (
    <>
      <ErrorBanner error={list.error} />
      {list.loading && !rows && !list.error && <TableSkeleton columns={columns.map((c) => c.header)} caption={props.caption} />}
      {rows && (
        <>
          <div class="table-wrap">
            <table>
              <caption class="sr-only">{props.caption}</caption>
              <thead>
                <tr>
                  {columns.map((c) => (
                    <th scope="col" key={c.header}>
                      {c.header || <span class="sr-only">Actions</span>}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={props.rowKey(row)}>
                    {columns.map((c) => (
                      <td key={c.header} class={typeof c.class === "function" ? c.class(row) : c.class}>
                        {c.cell(row)}
                      </td>
                    ))}
                  </tr>
                ))}
                {rows.length === 0 && (
                  <tr>
                    <td colSpan={columns.length} class="muted">
                      {props.empty}
                    </td>
                  </tr>
                )}
              </tbody>
            </table>
          </div>
          {paged && <Pager page={paged.page} pageSize={paged.page_size} total={paged.total} onPage={props.onPage} />}
        </>
      )}
    </>
  );
}
