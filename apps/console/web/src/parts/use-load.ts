import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { ApiError } from '../api';

export interface Loaded<T> {
  readonly data: T | null;
  readonly error: string | null;
  readonly loading: boolean;
  readonly reload: () => void;
}

/** Loads what a page shows, again on `reload()` (a live update, a decision); the last answer wins. */
export function useLoad<T>(load: () => Promise<T>, key: string): Loaded<T> {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({
    data: null,
    error: null,
    loading: true,
  });
  const generation = useRef(0);
  const latest = useRef(load);
  latest.current = load;
  const reload = useCallback(() => {
    const mine = ++generation.current;
    setState((previous) => ({ ...previous, loading: true }));
    latest.current().then(
      (data) => mine === generation.current && setState({ data, error: null, loading: false }),
      (error: unknown) =>
        mine === generation.current &&
        setState((previous) => ({ data: previous.data, error: error instanceof ApiError ? error.message : String(error), loading: false })),
    );
  }, []);
  useEffect(() => {
    setState({ data: null, error: null, loading: true });
    reload();
  }, [key, reload]);
  return { ...state, reload };
}
