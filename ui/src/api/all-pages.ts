// Every item of a paged list, for the pickers and the short lists that show a list whole (the
// project picker, reference pickers, users and members): the first page of 100 (the API's
// largest), then the remaining pages together, up to `cap` items. `total` stays the server's
// count, so a caller can say when more exist than were read.
import type { Paged } from "./types";

export const pageLimit = 100;

// A page's request (typed where a caller's function is written, so that the list's own type is
// inferred from what it returns).
export type PageQuery = { page: number; page_size: number };

export async function allPages<P extends Paged>(
  fetchPage: (query: PageQuery) => Promise<P>,
  key: Exclude<keyof P, keyof Paged>,
  cap = 1000,
): Promise<P> {
  const first = await fetchPage({ page: 1, page_size: pageLimit });
  const pages = Math.min(Math.ceil(first.total / pageLimit), Math.ceil(cap / pageLimit));
  if (pages <= 1) return first;
  const rest = await Promise.all(Array.from({ length: pages - 1 }, (_, i) => fetchPage({ page: i + 2, page_size: pageLimit })));
  const items = [first, ...rest].flatMap((p) => p[key] as unknown[]).slice(0, cap);
  return { ...first, [key]: items, page_size: items.length };
}
