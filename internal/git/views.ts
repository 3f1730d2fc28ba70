import { notFound, type Flag, type Namespace, type Page, type Rollout, type Rule, type Segment } from '../core';
import type { CompiledFlag, CompiledNamespace } from '../evaluation';
import type { ListParams, ReadStore } from '../storage';
import type { GitEnvironment } from './environment';

/**
 * An environment seen through the database's ports, so the management API and every evaluation
 * route serve Git-backed flags with the same code, errors and paging as the database's.
 * Both read the snapshot in service at call time: a fetch swaps it whole between two calls.
 */

/** The management API's reads (writes are refused elsewhere: Git is read-only through the API). */
export class EnvironmentReadStore implements ReadStore {
  constructor(private readonly environment: GitEnvironment) {}

  private data(ns: string) {
    return this.environment.namespace(ns);
  }

  async getNamespace(key: string): Promise<Namespace> {
    const entry = this.data(key);
    if (!entry) throw notFound(`namespace "${key}" not found`);
    return entry.namespace;
  }

  async listNamespaces(params: ListParams): Promise<Page<Namespace>> {
    const all = [...this.environment.snapshot.namespaces.values()].map((e) => e.namespace);
    // The database's order: creation time, then key (one commit gives all the same time).
    all.sort((a, b) => a.createdAt - b.createdAt || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return page(all, params, (n) => n.key);
  }

  async getFlag(ns: string, key: string): Promise<Flag> {
    const flag = this.data(ns)?.data.flags.find((f) => f.key === key);
    if (!flag) throw notFound(`flag "${ns}/${key}" not found`);
    return flag;
  }

  async listFlags(ns: string, params: ListParams): Promise<Page<Flag>> {
    return page(this.data(ns)?.data.flags ?? [], params, (f) => f.key);
  }

  async getSegment(ns: string, key: string): Promise<Segment> {
    const segment = this.data(ns)?.data.segments.find((s) => s.key === key);
    if (!segment) throw notFound(`segment "${ns}/${key}" not found`);
    return segment;
  }

  async listSegments(ns: string, params: ListParams): Promise<Page<Segment>> {
    return page(this.data(ns)?.data.segments ?? [], params, (s) => s.key);
  }

  async getRule(ns: string, flagKey: string, id: string): Promise<Rule> {
    const rule = this.data(ns)?.data.rules.find((r) => r.id === id && r.flagKey === flagKey);
    if (!rule) throw notFound(`rule "${ns}/${id}" not found`);
    return rule;
  }

  async listRules(ns: string, flagKey: string, params: ListParams): Promise<Page<Rule>> {
    return page(ranked(this.data(ns)?.data.rules ?? [], flagKey), params, (r) => r.id);
  }

  async getRollout(ns: string, flagKey: string, id: string): Promise<Rollout> {
    const rollout = this.data(ns)?.data.rollouts.find((r) => r.id === id && r.flagKey === flagKey);
    if (!rollout) throw notFound(`rollout "${ns}/${id}" not found`);
    return rollout;
  }

  async listRollouts(ns: string, flagKey: string, params: ListParams): Promise<Page<Rollout>> {
    return page(ranked(this.data(ns)?.data.rollouts ?? [], flagKey), params, (r) => r.id);
  }

  async getRevision(ns: string): Promise<string | null> {
    return this.data(ns)?.data.revision ?? null;
  }
}

function ranked<T extends { flagKey: string; rank: number }>(items: T[], flagKey: string): T[] {
  return items.filter((i) => i.flagKey === flagKey).sort((a, b) => a.rank - b.rank);
}

/** The same page and next-page description as the SQL store's `pageOf`. */
function page<T>(all: readonly T[], params: ListParams, keyOf: (item: T) => string): Page<T> {
  const end = params.limit > 0 ? params.offset + params.limit : all.length;
  const items = all.slice(params.offset, end);
  const next = params.limit > 0 && end < all.length ? { offset: end, key: keyOf(all[end]) } : null;
  return { items, total: all.length, next };
}

/** A namespace moved to another commit (the snapshots room's `SnapshotUpdate`, which this room cannot import). */
interface EnvironmentUpdate {
  namespace: string;
  snapshot: CompiledNamespace;
  previous: CompiledNamespace;
  at: number;
}

/** Evaluation's view: the environment's compiled namespaces, always fresh (never a promise). */
export class EnvironmentSnapshots {
  private readonly watchers = new Map<string, Set<(update: EnvironmentUpdate) => void>>();
  /** What each watched namespace was at the last swap, to tell what moved. */
  private readonly seen = new Map<string, CompiledNamespace>();
  private stopListening: (() => void) | null = null;
  private changedAt = Date.now();

  constructor(private readonly environment: GitEnvironment) {}

  /** Every later commit's snapshot of `ns`, when it differs from the one before (a commit is a new revision). */
  watch(ns: string, listener: (update: EnvironmentUpdate) => void): () => void {
    let listeners = this.watchers.get(ns);
    if (!listeners) {
      this.watchers.set(ns, (listeners = new Set()));
      this.seen.set(ns, this.get(ns));
    }
    listeners.add(listener);
    this.stopListening ??= this.environment.onChange(() => this.swapped());
    return () => {
      listeners.delete(listener);
      if (listeners.size > 0 || this.watchers.get(ns) !== listeners) return;
      this.watchers.delete(ns);
      this.seen.delete(ns);
      if (this.watchers.size === 0) {
        this.stopListening?.();
        this.stopListening = null;
      }
    };
  }

  /** A commit is fetched by every instance on its own: what this one holds is what it can serve. */
  async settle(ns: string): Promise<CompiledNamespace> {
    return this.get(ns);
  }

  modifiedAt(): number {
    return this.changedAt;
  }

  private swapped(): void {
    this.changedAt = Date.now();
    for (const [ns, listeners] of this.watchers) {
      const previous = this.seen.get(ns) ?? this.get(ns);
      const snapshot = this.get(ns);
      if (snapshot.revision === previous.revision) continue;
      this.seen.set(ns, snapshot);
      const update = { namespace: ns, snapshot, previous, at: this.changedAt };
      for (const listener of listeners) listener(update);
    }
  }

  get(ns: string): CompiledNamespace {
    // As for the database, a namespace that does not exist evaluates as an empty one.
    return this.environment.compiled(ns) ?? { key: ns, revision: '', flags: new Map(), ordered: [] };
  }

  async flag(ns: string, key: string): Promise<CompiledFlag> {
    return this.flagNow(ns, key);
  }

  flagNow(ns: string, key: string): CompiledFlag {
    const flag = this.get(ns).flags.get(key);
    if (!flag) throw notFound(`flag "${ns}/${key}" not found`);
    return flag;
  }
}
