import type { NamespaceData } from '../core';
import type { EvaluationSource } from '../storage';
import type { Cache } from './types';

/** Larger namespaces are not shared: moving them through Redis would cost more than reading them. */
const MAX_SHARED_BYTES = 8 * 1024 * 1024;
/** A namespace read in pages is shared only up to this many flags (read again whole to be). */
const MAX_SHARED_FLAGS = 1000;

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
    return (await this.cached(ns, revision)) ?? this.readAndShare(ns);
  }

  /**
   * The same in pages, where the database reads in pages: a large namespace's rebuild never
   * holds its whole read model (nor its JSON: that alone held the loop for hundreds of
   * milliseconds at 10,000 flags, to find it too large to share). A small one is read again
   * whole and shared, as loadNamespace would have.
   */
  async loadNamespacePages(ns: string, consume: (page: NamespaceData) => Promise<void>): Promise<string | null> {
    const revision = await this.source.getRevision(ns);
    if (revision === null) return null;
    const cached = await this.cached(ns, revision);
    if (cached) {
      await consume(cached);
      return cached.revision;
    }
    if (!this.source.loadNamespacePages) {
      const data = await this.readAndShare(ns);
      if (data) await consume(data);
      return data?.revision ?? null;
    }
    let flags = 0;
    const read = await this.source.loadNamespacePages(ns, (page) => {
      flags += page.flags.length;
      return consume(page);
    });
    if (read !== null && flags <= MAX_SHARED_FLAGS) await this.readAndShare(ns);
    return read;
  }

  /** The namespace read whole from the database and, when small enough, shared under its revision. */
  private async readAndShare(ns: string): Promise<NamespaceData | null> {
    const data = await this.source.loadNamespace(ns);
    if (data) this.share(data);
    return data;
  }

  private async cached(ns: string, revision: string): Promise<NamespaceData | null> {
    const cached = await this.cache.get(keyOf(ns, revision));
    if (cached === undefined) return null;
    try {
      const data = JSON.parse(cached) as NamespaceData;
      if (data.key === ns && data.revision === revision) return data;
    } catch {
      // A damaged entry: read the database instead.
    }
    return null;
  }

  private share(data: NamespaceData): void {
    const json = JSON.stringify(data);
    if (json.length <= MAX_SHARED_BYTES) void this.cache.set(keyOf(data.key, data.revision), json, this.ttlMs);
  }

  loadFlags: EvaluationSource['loadFlags'] = (ns, flags, segments) => this.source.loadFlags(ns, flags, segments);
  listRevisions: EvaluationSource['listRevisions'] = () => this.source.listRevisions();
  changesSince: NonNullable<EvaluationSource['changesSince']> = async (ns, revision) => (await this.source.changesSince?.(ns, revision)) ?? null;
}

function keyOf(ns: string, revision: string): string {
  return `snapshot:${ns}:${revision}`;
}
