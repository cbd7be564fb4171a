// A small history router: the path is the state, links push it, the back button pops it.
import { useEffect, useState } from "preact/hooks";

const listeners = new Set<() => void>();

function notify() {
  for (const l of listeners) l();
}

window.addEventListener("popstate", notify);

export function navigate(to: string, replace = false): void {
  if (to === location.pathname + location.search) return;
  if (replace) history.replaceState(null, "", to);
  else history.pushState(null, "", to);
  window.scrollTo(0, 0);
  notify();
}

export interface Location {
  path: string;
  query: URLSearchParams;
}

export function useLocation(): Location {
  const [, setTick] = useState(0);
  useEffect(() => {
    const l = () => setTick((t) => t + 1);
    listeners.add(l);
    return () => {
      listeners.delete(l);
    };
  }, []);
  return { path: location.pathname, query: new URLSearchParams(location.search) };
}

// Replaces the query string (filters, page) without a new history entry per keystroke.
export function setQuery(values: Record<string, string | number | undefined>, replace = true): void {
  const params = new URLSearchParams(location.search);
  for (const [k, v] of Object.entries(values)) {
    if (v === undefined || v === "") params.delete(k);
    else params.set(k, String(v));
  }
  const s = params.toString();
  navigate(location.pathname + (s ? `?${s}` : ""), replace);
}

// What a captured segment may be: ids and names of the app's own addresses. Anything else
// (an encoded slash, "..", a query) is no page, so it never reaches an API path.
const segment = /^[A-Za-z0-9_-]{1,64}$/;

// Matches "/p/:project/certificates/:id" against a path; the captured segments, or null.
export function match(pattern: string, path: string): Record<string, string> | null {
  const want = pattern.split("/").filter(Boolean);
  const got = path.split("/").filter(Boolean);
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    const w = want[i]!;
    const g = got[i]!;
    if (w.startsWith(":")) {
      if (!segment.test(g)) return null;
      params[w.slice(1)] = g;
    } else if (w !== g) return null;
  }
  return params;
}
