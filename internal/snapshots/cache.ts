import type { Logger } from 'pino';
import { isPennonError, notFound, unavailable } from '../core';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { NamespaceCompiler, patchNamespace, type CompiledFlag, type CompiledNamespace, type NamespaceData } from '../evaluation';
import type { Change, EvaluationSource } from '../storage';
import type { SnapshotListener, WatchableSnapshots } from './updates';

/**
 * Compiled namespace snapshots, kept fresh without touching the database on the evaluation
 * path:
 * - a write made through this process marks its namespace stale at commit (`apply`), and the
 *   very next evaluation brings it up to date first (read-your-writes) — by re-reading only
 *   the flags the write touched when the revisions line up, else the whole namespace;
 * - a poller compares every namespace's revision (one query) every `pollInterval`, which is
 *   how writes made by other instances arrive: the database's change log says what they
 *   touched, and only that is re-read; where it cannot say (no log, too far behind), the whole
 *   namespace is rebuilt — in the background either way: evaluations keep answering from the
 *   held snapshot until the new one is built;
 * - a snapshot is never half-built: the new one replaces the old in one step.
 * When the database cannot be read, the last good snapshot keeps answering.
 */

interface Pending {
  /** The revision the snapshot must be at for a patch to be right; null forces a rebuild. */
  from: string | null;
  /** The revision after the last change: a patch must read exactly this one. */
  to: string | null;
  flags: Set<string>;
  segments: Set<string>;
  whole: boolean;
  /**
   * Evaluations wait for the refresh: a write made through this process (read-your-writes).
   * Changes made elsewhere (found by the poll, heard from another instance or worker) are
   * refreshed in the background while the held snapshot keeps answering — a whole rebuild of a
   * large namespace takes seconds, and nobody here is waiting to read that write.
   */
  wait: boolean;
}

interface Entry {
  snapshot: CompiledNamespace | null;
  pending: Pending | null;
  /** Bumped by every change; a load started before the bump cannot make the entry fresh. */
  generation: number;
  loading: { generation: number; promise: Promise<CompiledNamespace> } | null;
  /** After a failed refresh, the held snapshot answers without retrying until then (ms). */
  retryAt: number;
  /** When the snapshot last moved to another revision (ms since the epoch). */
  modifiedAt: number;
}

/** How long evaluations use a held snapshot without retrying after the database failed. */
const RETRY_AFTER_FAILURE_MS = 1000;

const EMPTY_REVISION = '';

/** Flags compiled per turn of the event loop in a rebuild (~5–15 ms at ten rules per flag). */
const FLAGS_PER_SLICE = 100;

/** An empty snapshot: what a namespace that does not exist evaluates against. */
function emptySnapshot(key: string): CompiledNamespace {
  return { key, revision: EMPTY_REVISION, flags: new Map(), ordered: [] };
}

function flagOf(snapshot: CompiledNamespace, ns: string, key: string): CompiledFlag {
  const flag = snapshot.flags.get(key);
  if (!flag) throw notFound(`flag "${ns}/${key}" not found`);
  return flag;
}

export interface SnapshotCacheOptions {
  /** How often to look for writes made elsewhere (ms); 0 disables polling. */
  pollInterval: number;
  logger: Logger;
  /** Bound on namespaces remembered as missing, so random keys cannot grow memory. */
  maxMissing?: number;
  /** Told the outcome of every poll (null: the database answered), e.g. for /health. */
  onPoll?: (error: unknown) => void;
}

export class SnapshotCache implements WatchableSnapshots {
  private readonly entries = new Map<string, Entry>();
  /** Live streams' listeners by namespace: a watched namespace is refreshed as soon as it changes. */
  private readonly watchers = new Map<string, Set<SnapshotListener>>();
  /** Watched namespaces whose refresh is queued for the next turn (several writes, one refresh). */
  private readonly refreshQueued = new Set<string>();
  private missing = 0;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  /** Set while polls fail, so that an outage is logged once, not every interval. */
  private pollFailingSince: number | null = null;
  /** How snapshots were brought up to date, for tests and metrics. */
  readonly stats = { rebuilds: 0, patches: 0 };

  constructor(
    private readonly source: EvaluationSource,
    private readonly options: SnapshotCacheOptions,
  ) {}

  /** The current snapshot; synchronous when it is fresh (the common case). */
  get(ns: string): CompiledNamespace | Promise<CompiledNamespace> {
    const entry = this.entries.get(ns);
    if (entry && entry.snapshot) {
      if (entry.pending === null || entry.retryAt > Date.now()) return entry.snapshot;
      if (!entry.pending.wait) {
        if (!entry.loading) this.load(ns, entry).catch(() => undefined);
        return entry.snapshot;
      }
    }
    return this.load(ns, entry);
  }

  /** A flag of a namespace, or Flipt's not-found error. */
  async flag(ns: string, key: string): Promise<CompiledFlag> {
    return flagOf(await this.get(ns), ns, key);
  }

  /** The same, synchronously when the snapshot is fresh (no promise on the hot path). */
  flagNow(ns: string, key: string): CompiledFlag | Promise<CompiledFlag> {
    const snapshot = this.get(ns);
    return snapshot instanceof Promise ? snapshot.then((s) => flagOf(s, ns, key)) : flagOf(snapshot, ns, key);
  }

  /**
   * A committed write: remember what to re-read. `wait` (a write made through this process)
   * makes evaluations wait for the refresh; a change made elsewhere is refreshed meanwhile.
   */
  apply(change: Change, wait = true): void {
    const entry = this.entries.get(change.ns);
    if (!entry) return;
    entry.generation++;
    entry.retryAt = 0; // a write just committed: the database answers, and the writer must see it
    const pending = entry.pending;
    // A patch is right only if nothing else moved the revision in between.
    const contiguous = pending ? pending.to !== null && pending.to === change.before : entry.snapshot?.revision === change.before;
    const next: Pending = pending ?? { from: change.before, to: null, flags: new Set(), segments: new Set(), whole: false, wait: false };
    next.to = change.after;
    next.wait ||= wait;
    if (!contiguous || change.whole || change.before === null || change.after === null) next.whole = true;
    for (const f of change.flags) next.flags.add(f);
    for (const s of change.segments) next.segments.add(s);
    entry.pending = next;
    this.refreshIfWatched(change.ns);
  }

  watch(ns: string, listener: SnapshotListener): () => void {
    let listeners = this.watchers.get(ns);
    if (!listeners) this.watchers.set(ns, (listeners = new Set()));
    listeners.add(listener);
    // Held from now on, so that its changes are followed (a failed first load is retried by the poll).
    const loaded = this.get(ns);
    if (loaded instanceof Promise) loaded.catch(() => undefined);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.watchers.get(ns) === listeners) this.watchers.delete(ns);
    };
  }

  /** Listeners held now, every namespace together: what a leak would grow. */
  get watching(): number {
    let n = 0;
    for (const listeners of this.watchers.values()) n += listeners.size;
    return n;
  }

  async settle(ns: string, revision: string): Promise<CompiledNamespace> {
    const held = await this.get(ns);
    if (held.revision === revision) return held;
    await this.poll();
    const entry = this.entries.get(ns);
    return entry?.pending ? this.load(ns, entry) : held;
  }

  modifiedAt(ns: string): number {
    return this.entries.get(ns)?.modifiedAt ?? Date.now();
  }

  private refreshIfWatched(ns: string): void {
    if (!this.watchers.has(ns) || this.refreshQueued.has(ns)) return;
    this.refreshQueued.add(ns);
    setImmediate(() => {
      this.refreshQueued.delete(ns);
      this.refreshSoon(ns);
    });
  }

  /**
   * Starts bringing a stale namespace up to date now rather than at its next evaluation (a
   * change heard from another instance or found by the poll), so that evaluations rarely wait.
   */
  refreshSoon(ns: string): void {
    const entry = this.entries.get(ns);
    if (entry?.pending) this.load(ns, entry).catch(() => undefined);
  }

  /** Marks a namespace stale as a whole (a change made elsewhere whose extent is unknown). */
  invalidate(ns: string): void {
    const entry = this.entries.get(ns);
    if (!entry) return;
    entry.generation++;
    entry.pending = { from: null, to: null, flags: new Set(), segments: new Set(), whole: true, wait: entry.pending?.wait ?? false };
    this.refreshIfWatched(ns);
  }

  start(): void {
    if (this.options.pollInterval <= 0 || this.timer) return;
    this.timer = setInterval(() => void this.poll(), this.options.pollInterval);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /**
   * Whether any existing namespace's snapshot is held — what evaluations can be answered from
   * while the database is down (health: a database outage without one makes the store unusable).
   */
  holdsAny(): boolean {
    for (const entry of this.entries.values()) if (entry.snapshot && entry.snapshot.revision !== EMPTY_REVISION) return true;
    return false;
  }

  /**
   * Loads the snapshots of `only` (every namespace the database holds when empty), one at a time,
   * before the service says SERVING: the first evaluation then finds its snapshot built. A
   * namespace named that does not exist is remembered as missing. Returns what was loaded.
   */
  async warm(only: readonly string[] = []): Promise<{ namespaces: number; flags: number }> {
    const keys = only.length > 0 ? only : [...(await this.source.listRevisions()).keys()];
    let flags = 0;
    for (const ns of keys) flags += (await this.get(ns)).flags.size;
    return { namespaces: keys.length, flags };
  }

  /** Compares revisions with the database once; stale entries rebuild on their next use. */
  async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      const revisions = await this.source.listRevisions();
      if (this.pollFailingSince !== null) {
        this.options.logger.info({ downForMs: Date.now() - this.pollFailingSince }, 'the database answers again');
        this.pollFailingSince = null;
      }
      this.options.onPoll?.(null);
      for (const [ns, entry] of this.entries) {
        const current = revisions.get(ns) ?? EMPTY_REVISION;
        if (entry.pending === null && entry.snapshot && entry.snapshot.revision !== current) {
          if (!(await this.catchUp(ns, entry.snapshot.revision, current))) this.invalidate(ns);
          this.refreshSoon(ns);
        }
      }
    } catch (err) {
      if (this.pollFailingSince === null) {
        this.pollFailingSince = Date.now();
        this.options.logger.warn({ err }, 'cannot check namespace revisions: serving the snapshots held until the database answers');
      }
      this.options.onPoll?.(err);
    } finally {
      this.polling = false;
    }
  }

  /**
   * A change made elsewhere, found by the poll: the source's change log from the revision held,
   * applied as if announced, so only what it touched is reloaded. `apply` already turns a gap in
   * the chain into a whole rebuild, and the refresh rebuilds when its read is not at the last
   * change's revision (a log missing the newest writes). False when there is no log to follow.
   */
  private async catchUp(ns: string, from: string, to: string): Promise<boolean> {
    if (!this.source.changesSince || to === EMPTY_REVISION) return false;
    let changes: Change[] | null;
    try {
      changes = await this.source.changesSince(ns, from);
    } catch {
      return false; // an unreadable log costs a rebuild, never the poll
    }
    if (!changes || changes.length === 0) return false;
    for (const change of changes) this.apply(change, false);
    return true;
  }

  private load(ns: string, existing: Entry | undefined): Promise<CompiledNamespace> {
    const entry: Entry = existing ?? this.remember(ns);
    if (entry.loading && entry.loading.generation === entry.generation) return entry.loading.promise;
    const generation = entry.generation;
    const pending = entry.pending;
    const promise = this.refresh(ns, entry.snapshot, pending)
      .then((snapshot) => {
        const previous = entry.snapshot;
        const wasMissing = previous?.revision === EMPTY_REVISION;
        entry.snapshot = snapshot;
        if (previous && previous.revision !== snapshot.revision) this.announce(ns, entry, previous, snapshot);
        if (snapshot.revision === EMPTY_REVISION && !wasMissing) this.addMissing(ns);
        if (snapshot.revision !== EMPTY_REVISION && wasMissing) this.missing--;
        if (entry.generation === generation) entry.pending = null;
        return snapshot;
      })
      .catch((err: unknown) => {
        // A request the database cannot hold (a NUL in the namespace key, on PostgreSQL) is the
        // client's to fix: a 400, not an outage.
        if (isPennonError(err) && err.kind === 'invalid') throw err;
        // The database is unreachable: keep answering from what we have, if anything.
        if (entry.snapshot) {
          entry.retryAt = Date.now() + RETRY_AFTER_FAILURE_MS;
          if (this.pollFailingSince === null) this.options.logger.warn({ err, namespace: ns }, 'could not refresh a snapshot; serving the previous one');
          return entry.snapshot;
        }
        throw unavailable('the flag store is unavailable', err);
      })
      .finally(() => {
        if (entry.loading?.promise === promise) entry.loading = null;
      });
    entry.loading = { generation, promise };
    return promise;
  }

  private announce(ns: string, entry: Entry, previous: CompiledNamespace, snapshot: CompiledNamespace): void {
    entry.modifiedAt = Date.now();
    const listeners = this.watchers.get(ns);
    if (!listeners) return;
    const update = { namespace: ns, snapshot, previous, at: entry.modifiedAt };
    for (const listener of listeners) {
      try {
        listener(update);
      } catch (err) {
        this.options.logger.error({ err, namespace: ns }, 'a listener of snapshot updates failed');
      }
    }
  }

  /** A patch when the pending change allows it and the read lines up; otherwise a rebuild. */
  private async refresh(ns: string, old: CompiledNamespace | null, pending: Pending | null): Promise<CompiledNamespace> {
    if (old && pending && !pending.whole && pending.from === old.revision) {
      const data = await this.source.loadFlags(ns, [...pending.flags], [...pending.segments]);
      // Another instance's write in between would make a patch wrong: rebuild instead.
      if (data && data.revision === pending.to) {
        this.stats.patches++;
        return patchNamespace(old, data);
      }
    }
    this.stats.rebuilds++;
    // Compiled a slice at a time (evaluations keep answering from the held snapshot meanwhile,
    // and the new one replaces it whole); page by page where the source reads in pages, so that
    // only compiled flags are held, never the whole read model.
    const compiler = new NamespaceCompiler(ns);
    const add = (page: NamespaceData) => compiler.add(page, FLAGS_PER_SLICE, () => nextTurn());
    const revision = this.source.loadNamespacePages ? await this.source.loadNamespacePages(ns, add) : await this.loadWhole(ns, add);
    return revision === null ? emptySnapshot(ns) : compiler.finish(revision);
  }

  /** A source without pages: its whole read model as one page; the revision read, or null. */
  private async loadWhole(ns: string, add: (page: NamespaceData) => Promise<void>): Promise<string | null> {
    const data = await this.source.loadNamespace(ns);
    if (!data) return null;
    await add(data);
    return data.revision;
  }

  private remember(ns: string): Entry {
    const entry: Entry = { snapshot: null, pending: null, generation: 0, loading: null, retryAt: 0, modifiedAt: Date.now() };
    this.entries.set(ns, entry);
    return entry;
  }

  /** Remembers a missing namespace, forgetting the oldest past the bound (a later ask costs one query). */
  private addMissing(ns: string): void {
    this.missing++;
    const max = this.options.maxMissing ?? 1000;
    for (const [key, e] of this.entries) {
      if (this.missing <= max) break;
      if (key !== ns && e.snapshot?.revision === EMPTY_REVISION && !e.loading && !this.watchers.has(key)) {
        this.entries.delete(key);
        this.missing--;
      }
    }
  }
}
