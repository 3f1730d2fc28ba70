import type { CompiledNamespace } from '../evaluation';

/** A namespace's snapshot replaced by one at another revision: what live streams are told. */
export interface SnapshotUpdate {
  namespace: string;
  snapshot: CompiledNamespace;
  previous: CompiledNamespace;
  /** When the new snapshot was swapped in (ms since the epoch): OFREP's `lastModified`. */
  at: number;
}

export type SnapshotListener = (update: SnapshotUpdate) => void;

/** What a live stream needs of a flag source's snapshots, beyond evaluation's reads. */
export interface WatchableSnapshots {
  /**
   * Tells `listener` of every later snapshot of `ns` (a namespace that does not exist yet too:
   * its creation is a change), brought up to date as soon as a change is known rather than at
   * the next evaluation. Returns the way to stop.
   */
  watch(ns: string, listener: SnapshotListener): () => void;
  /**
   * The snapshot once it is at least as new as a revision a client heard of (an instance that
   * has not heard yet looks first); the held one if it cannot get there.
   */
  settle(ns: string, revision: string): Promise<CompiledNamespace>;
  /** When the held snapshot of `ns` last changed (ms since the epoch; its load when it never has). */
  modifiedAt(ns: string): number;
}

/** Each update's changed flags, worked out once however many streams ask (a diff over every flag). */
const changedOf = new WeakMap<object, string[]>();

/**
 * The flags an update changed or removed, by identity: a patch keeps every untouched flag's
 * compiled object, so after a patch this is exactly what the write touched (and the flags using
 * a touched segment); after a whole rebuild it is every flag. Shared: do not modify.
 */
export function changedFlags(update: Pick<SnapshotUpdate, 'snapshot' | 'previous'>): readonly string[] {
  const known = changedOf.get(update);
  if (known) return known;
  const changed: string[] = [];
  const { snapshot, previous } = update;
  for (const [key, flag] of snapshot.flags) if (previous.flags.get(key) !== flag) changed.push(key);
  for (const key of previous.flags.keys()) if (!snapshot.flags.has(key)) changed.push(key);
  changedOf.set(update, changed);
  return changed;
}
