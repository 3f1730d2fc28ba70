import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useMemo, useRef, useState } from 'preact/hooks';
import type { Query } from '../api/hooks';
import { NamespaceStream, type LiveChange, type LiveStatus } from '../api/live';
import { useNamespaces } from './namespaces';

/**
 * The current namespace's live updates for every screen (api/live.ts): one stream per
 * namespace, opened when the layout shows and moved when the namespace changes. A screen hears
 * the changes it cares about and reads again:
 *
 *   const query = useQuery(() => flags.list(ns), [ns]);
 *   useLiveRefresh(query, (change) => change.flags?.length !== 0);   // a flag changed (or maybe)
 *
 * A form never has its user's unsaved input replaced: see components/changed-elsewhere.tsx.
 */

const LiveContext = createContext<NamespaceStream | null>(null);

export function LiveProvider({ children }: { children: ComponentChildren }) {
  const { current } = useNamespaces();
  const stream = useMemo(() => new NamespaceStream(current), [current]);
  useEffect(() => () => stream.close(), [stream]);
  return <LiveContext.Provider value={stream}>{children}</LiveContext.Provider>;
}

/** Calls `listener` (the latest one given) on each change of the current namespace. */
export function useLiveChanges(listener: (change: LiveChange) => void): void {
  const stream = useContext(LiveContext);
  const latest = useRef(listener);
  latest.current = listener;
  useEffect(() => stream?.subscribe((change) => latest.current(change)), [stream]);
}

/** `query.refresh()` on each change that `matters` (every change by default). */
export function useLiveRefresh(query: Pick<Query<unknown>, 'refresh'>, matters: (change: LiveChange) => boolean = () => true): void {
  useLiveChanges((change) => {
    if (matters(change)) query.refresh();
  });
}

/** A change that may concern flag `key` (named, or unknown). */
export const touchesFlag = (key: string) => (change: LiveChange) => change.flags === null || change.flags.includes(key);

/** A change that may concern some flag (not one to segments alone). */
export const touchesAnyFlag = (change: LiveChange) => change.flags === null || change.flags.length > 0;

/** Whether the stream is up: shown in the header (components/live-status.tsx). */
export function useLiveStatus(): LiveStatus {
  const stream = useContext(LiveContext);
  const [status, setStatus] = useState<LiveStatus>(stream?.status ?? 'connecting');
  useEffect(() => {
    if (!stream) return;
    setStatus(stream.status);
    return stream.onStatus(setStatus);
  }, [stream]);
  return status;
}
