import type { NamespaceData } from '../core';
import type { EvaluationSource } from '../storage';
import type { Cache } from './types';

/** Larger namespaces are not shared: moving them through Redis would cost more than reading them. */
const MAX_SHARED_BYTES = 8 * 1024 * 1024;

/**
 * The evaluation model of whole namespaces, shared between instances through the cache and
 * keyed by revision: when several instances rebuild the same namespace (at start, or after a
 * change that cannot be patched), one reads the database and the others read the cache. A
 * revision names exactly one state of a namespace, so an entry can never be stale — only
 * absent. Patches (`loadFlags`) and revision checks go to the database.
 */
export class SharedSnapshotSource implements EvaluationSource {
  constructor(
    private readonly source: EvaluationSource & { getRevision(ns: string): Promise<string | null> },
    private readonly cache: Cache,
    private readonly ttlMs: number,
  ) {}

  async loadNamespace(ns: string): Promise<NamespaceData | null> {
    const revision = await this.source.getRevision(ns);
    if (revision === null) return null;
    const cached = await this.cache.get(keyOf(ns, revision));
    if (cached !== undefined) {
      try {
        const data = JSON.parse(cached) as NamespaceData;
        if (data.key === ns && data.revision === revision) return data;
      } catch {
        // A damaged entry: read the database instead.
      }
    }
    const data = await this.source.loadNamespace(ns);
    if (data) {
      const json = JSON.stringify(data);
      if (json.length <= MAX_SHARED_BYTES) void this.cache.set(keyOf(ns, data.revision), json, this.ttlMs);
    }
    return data;
  }

  loadFlags: EvaluationSource['loadFlags'] = (ns, flags, segments) => this.source.loadFlags(ns, flags, segments);
  listRevisions: EvaluationSource['listRevisions'] = () => this.source.listRevisions();
  changesSince: NonNullable<EvaluationSource['changesSince']> = async (ns, revision) => (await this.source.changesSince?.(ns, revision)) ?? null;
}

function keyOf(ns: string, revision: string): string {
  return `snapshot:${ns}:${revision}`;
}
