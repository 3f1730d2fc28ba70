import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { audit, type AuditEvent, type AuditFilter } from '../../api/audit';
import { mergeNewest } from '../../lib/audit-pages';

/**
 * A namespace's audit events for a filter, a page at a time: the first page on load (and again
 * when the filter changes), the next on `loadMore` (the page token the last one gave), and
 * `refresh` — a change heard on the live stream — reads the first page again and puts the events
 * not shown yet on top, keeping the pages loaded below (lib/audit-pages.ts, mergeNewest).
 */
export interface AuditEvents {
  events: AuditEvent[];
  /** The first page is on its way (not a refresh: the list stays shown then). */
  loading: boolean;
  /** The first page failed (or, with events shown, the last refresh did). */
  error: unknown;
  hasMore: boolean;
  loadingMore: boolean;
  moreError: unknown;
  loadMore: () => void;
  refresh: () => void;
  reload: () => void;
}

interface State {
  events: AuditEvent[];
  pageToken: string;
  loading: boolean;
  error: unknown;
  loadingMore: boolean;
  moreError: unknown;
}

const INITIAL: State = { events: [], pageToken: '', loading: true, error: null, loadingMore: false, moreError: null };

export function useAuditEvents(ns: string, filter: AuditFilter, pageSize: number): AuditEvents {
  const [state, setState] = useState<State>(INITIAL);
  const [tick, setTick] = useState(0);
  // Answers for an earlier namespace or filter are dropped: each load carries the generation it was for.
  const generation = useRef(0);
  const filterKey = JSON.stringify(filter);

  useEffect(() => {
    const id = ++generation.current;
    setState(INITIAL);
    audit.list(ns, filter, { limit: pageSize }).then(
      (page) => id === generation.current && setState({ ...INITIAL, loading: false, events: page.events, pageToken: page.nextPageToken }),
      (error: unknown) => id === generation.current && setState({ ...INITIAL, loading: false, error }),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the filter is compared by value
  }, [ns, filterKey, pageSize, tick]);

  const latest = useRef(state);
  latest.current = state;

  const loadMore = useCallback(() => {
    const { pageToken, loadingMore } = latest.current;
    if (pageToken === '' || loadingMore) return;
    const id = generation.current;
    setState((s) => ({ ...s, loadingMore: true, moreError: null }));
    audit.list(ns, filter, { limit: pageSize, pageToken }).then(
      (page) =>
        id === generation.current &&
        setState((s) => {
          const known = new Set(s.events.map((e) => e.id));
          return { ...s, loadingMore: false, events: [...s.events, ...page.events.filter((e) => !known.has(e.id))], pageToken: page.nextPageToken };
        }),
      (moreError: unknown) => id === generation.current && setState((s) => ({ ...s, loadingMore: false, moreError })),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the filter is compared by value
  }, [ns, filterKey, pageSize]);

  const refresh = useCallback(() => {
    const id = generation.current;
    audit.list(ns, filter, { limit: pageSize }).then(
      (page) => id === generation.current && setState((s) => ({ ...s, ...mergeNewest(s, page, pageSize), loading: false, error: null })),
      (error: unknown) => id === generation.current && setState((s) => ({ ...s, loading: false, error })),
    );
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the filter is compared by value
  }, [ns, filterKey, pageSize]);

  const reload = useCallback(() => setTick((t) => t + 1), []);

  return {
    events: state.events,
    loading: state.loading,
    error: state.error,
    hasMore: state.pageToken !== '',
    loadingMore: state.loadingMore,
    moreError: state.moreError,
    loadMore,
    refresh,
    reload,
  };
}
