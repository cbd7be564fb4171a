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

// Calls `tick` every `ms` while `active` (a running job's log, a certificate being issued).
export function usePoll(active: boolean, ms: number, tick: () => void): void {
  useEffect(() => {
    if (!active) return undefined;
    const id = window.setInterval(tick, ms);
    return () => window.clearInterval(id);
  }, [active, ms, tick]);
}
