// useLoad: runs an API read when its inputs change; the newest answer wins.
import { useCallback, useEffect, useRef, useState } from "preact/hooks";

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<unknown>(null);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  // New inputs (another project, page, filter) drop what was read for the old ones, so that no
  // row of project A shows beside project B's answer; a reload keeps it until the answer.
  const shownFor = useRef<unknown[] | null>(null);
  if (shownFor.current && (shownFor.current.length !== deps.length || shownFor.current.some((d, i) => d !== deps[i]))) {
    shownFor.current = deps;
    if (data !== undefined) setData(undefined);
    if (error) setError(null);
  }
  shownFor.current ??= deps;
  const run = useCallback(() => {
    const mine = ++generation.current;
    setLoading(true);
    load().then(
      (d) => {
        if (mine !== generation.current) return;
        setData(d);
        setError(null);
        setLoading(false);
      },
      (e) => {
        if (mine !== generation.current) return;
        setError(e);
        setLoading(false);
      },
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, deps);
  useEffect(run, [run]);
  return { data, error, loading, reload: run };
}

// Calls `tick` every `ms` while `active` (a running job's log, a certificate being issued), but
// not while the tab is hidden.
export function usePoll(active: boolean, ms: number, tick: () => void): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return undefined;
    const id = window.setInterval(() => {
      if (!document.hidden) latest.current();
    }, ms);
    return () => window.clearInterval(id);
  }, [active, ms]);
}

// Live state, the one mechanism of the UI: while `active` (something on the page is still
// running), calls `tick` after `first` ms, then at doubling intervals up to `max` ms; a change of
// `active` or of `key` (another action followed) starts again from `first`. Nothing runs while
// the tab is hidden: the next tick comes once it is shown again.
export function useFollow(active: boolean, tick: () => void, key: unknown = null, first = 1000, max = 8000): void {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return undefined;
    let delay = first;
    let timer = 0;
    const next = () => {
      timer = window.setTimeout(() => {
        if (!document.hidden) latest.current();
        delay = Math.min(max, delay * 2);
        next();
      }, delay);
    };
    next();
    return () => window.clearTimeout(timer);
  }, [active, key, first, max]);
}

// A form's submit: prevents the page load, runs `action` once at a time, keeps its error for
// the form to show.
export function useSubmit(action: () => Promise<void>): { busy: boolean; error: unknown; setError: (e: unknown) => void; submit: (e?: Event) => Promise<void> } {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const submit = async (e?: Event) => {
    e?.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await action();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, submit };
}
