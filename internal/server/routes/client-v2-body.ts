import type { CompiledNamespace } from '../../evaluation';
import { bodyOf, compressSlices, FLAGS_PER_SLICE, type SnapshotBody } from './snapshot-body';
import { digestedSnapshotSlices, FLIPT_V2_GATE, PerSnapshotAndGate } from './snapshot-json';

/**
 * Flipt v2's snapshot document (`GET /client/v2/…/snapshot` and every frame of `…/stream`),
 * built once per snapshot by the client snapshot's machinery (snapshot-body.ts: slices with the
 * event loop free between them, kept gzip- and brotli-compressed) with its digest. Every stream
 * of a namespace shares it: a change is serialised once, however many clients follow it.
 */

declare module 'fastify' {
  interface FastifyInstance {
    /** Flipt v2's snapshot bodies (tests read `stats.builds`). */
    digestedBodies: DigestedBodies;
  }
}

export interface DigestedBody extends SnapshotBody {
  /** The document's `digest`: its ETag, and what a stream compares to skip a frame. */
  readonly digest: string;
}

/**
 * The JSON is kept uncompressed up to this size (v1's bodies: 1 MiB), since each stream writes
 * it to its client as is — one copy shared by every stream. Beyond it (tens of thousands of
 * flags) only the compressed forms are kept, and a frame is decompressed for each client as it
 * is written, rather than holding a document larger than this for as long as it is current.
 */
const RAW_KEPT_BYTES = 64 * 1024 * 1024;

export class DigestedBodies {
  private readonly cache = new PerSnapshotAndGate<DigestedBody>();
  /** Bodies built (not served from the cache), for tests. */
  readonly stats = { builds: 0 };

  of(snapshot: CompiledNamespace): Promise<DigestedBody> {
    return this.cache.of(snapshot, FLIPT_V2_GATE, async () => {
      this.stats.builds++;
      let digest = '';
      const slices = digestedSnapshotSlices(snapshot, FLAGS_PER_SLICE, (hex) => (digest = hex));
      const built = await compressSlices(slices, { flags: snapshot.ordered.length, rawKeptBytes: RAW_KEPT_BYTES });
      return { ...bodyOf(built), digest };
    });
  }
}
