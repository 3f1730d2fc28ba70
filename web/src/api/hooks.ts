import { useCallback, useEffect, useRef, useState } from 'preact/hooks';

/**
 * Loading data for a screen: `useQuery(() => namespaces.list(), [deps])` gives
 * `{data, error, loading, reload, refresh}`. A newer load supersedes an older one still in
 * flight, so a quick switch of namespace never shows the previous namespace's answer.
 */
export interface Query<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
  /**
   * Reads again because the data changed elsewhere (a live update, the fallback poll): as
   * `reload`, except that a failed read keeps the data shown (beside the error), so a screen
   * is never emptied under its user by a read it did not ask for.
   */
  refresh: () => void;
}

export function useQuery<T>(load: () => Promise<T>, deps: readonly unknown[]): Query<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  const keep = useRef(false);
  useEffect(() => {
    const id = ++latest.current;
    const keeping = keep.current;
    keep.current = false;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => id === latest.current && setState({ data, error: null, loading: false }),
      (error: unknown) => id === latest.current && setState((s) => ({ data: keeping ? s.data : undefined, error, loading: false })),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the caller names the dependencies
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  const refresh = useCallback(() => {
    keep.current = true;
    setTick((t) => t + 1);
  }, []);
  return { ...state, reload, refresh };
}

/**
 * A write from a form: `const save = useMutation(input => namespaces.create(input))`, then
 * `await save.run(input)` (resolves to the result, or undefined after an error, which stays in
 * `save.error` for `formErrors` to place beside the fields).
 */
export interface Mutation<I, O> {
  run: (input: I) => Promise<O | undefined>;
  busy: boolean;
  error: unknown;
  reset: () => void;
}

export function useMutation<I, O>(write: (input: I) => Promise<O>): Mutation<I, O> {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (input: I) => {
    setBusy(true);
    setError(null);
    try {
      return await write(input);
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  };
  return { run, busy, error, reset: () => setError(null) };
}
