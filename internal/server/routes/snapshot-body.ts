import { once } from 'node:events';
import { Readable } from 'node:stream';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { constants, createBrotliCompress, createBrotliDecompress, createGzip, type BrotliCompress, type Gzip } from 'node:zlib';
import type { CompiledNamespace } from '../../evaluation';
import { PerSnapshotAndGate, snapshotSlices } from './snapshot-json';

/**
 * The client snapshot's body, built once per snapshot and version gate and kept compressed.
 * Flipt's format repeats each segment in every rule that uses it (~11 KB per flag of 10 rules):
 * 10,000 flags are 112 MB of JSON, 100,000 more than a JavaScript string may hold. So the
 * document is serialised a few flags at a time with the event loop free between slices, each
 * slice fed to gzip and brotli at once (node:zlib compresses on libuv's thread pool, off the
 * loop), and only the compressed forms are kept (the JSON itself too when it is small). A client
 * that accepts neither gets the brotli form decompressed as it streams. Concurrent requests for the
 * same snapshot share one build; a snapshot no longer current is dropped with its bodies (WeakMap).
 */

export type Encoding = 'br' | 'gzip' | 'identity';

declare module 'fastify' {
  interface FastifyInstance {
    /** The client snapshot's bodies (tests read `stats.builds`). */
    snapshotBodies: SnapshotBodies;
  }
}

export interface SnapshotBody {
  length(encoding: Encoding): number;
  stream(encoding: Encoding): Readable;
}

/**
 * A compressed form as the compressor produced it, in pieces: joining them into one buffer was
 * one copy of the whole body on the event loop (114 MB of gzip at 100,000 flags).
 */
interface Pieces {
  chunks: Buffer[];
  length: number;
}

export interface Built {
  /** The JSON itself in blocks of about a megabyte, when small enough to keep beside its compressed forms. */
  raw: Buffer[] | null;
  rawLength: number;
  gzip: Pieces;
  br: Pieces;
}

/** Flags serialised per turn of the event loop: ~1–3 ms of work at ~11 KB per flag. */
export const FLAGS_PER_SLICE = 25;
/** Documents up to this size are kept uncompressed too (most namespaces). */
const RAW_KEPT_BYTES = 1024 * 1024;
/** The kept JSON's blocks: slices joined up to this size, so a reader gets few large writes. */
const RAW_BLOCK_BYTES = 1024 * 1024;
/** Brotli's quality: 11 (the default) takes minutes for 100 MB; 5 compresses such JSON ~as well as gzip 9, several times faster. */
const BROTLI_QUALITY = 5;

export class SnapshotBodies {
  private readonly cache = new PerSnapshotAndGate<Built>();
  /** Bodies built (not served from the cache), for tests. */
  readonly stats = { builds: 0 };

  of(snapshot: CompiledNamespace, acceptVersion: string | undefined): Promise<SnapshotBody> {
    return this.cache
      .of(snapshot, acceptVersion, () => {
        this.stats.builds++;
        return compressSlices(snapshotSlices(snapshot, acceptVersion, FLAGS_PER_SLICE), { flags: snapshot.ordered.length, rawKeptBytes: RAW_KEPT_BYTES });
      })
      .then(bodyOf);
  }
}

export function bodyOf(built: Built): SnapshotBody {
  return {
    length: (encoding) => (encoding === 'identity' ? built.rawLength : built[encoding].length),
    stream: (encoding) => {
      if (encoding !== 'identity') return paced(built[encoding].chunks);
      if (built.raw) return paced(built.raw);
      // Brotli decodes faster than gunzip (~1.4 against ~0.9 GB/s), on the thread pool too.
      return paced(built.br.chunks).pipe(createBrotliDecompress());
    },
  };
}

/** Bytes of a kept body written before the event loop gets a turn. */
const BYTES_PER_TURN = 1024 * 1024;

/**
 * Kept pieces as a stream that gives the event loop a turn after every megabyte. A reader that
 * keeps up (on loopback, say) otherwise takes every piece in one task — the stream refills
 * itself from its list in microtasks while the socket accepts — and 58 MB of gzip at 100,000
 * flags held evaluations ~125 ms.
 */
export function paced(chunks: readonly Buffer[]): Readable {
  let next = 0;
  let sinceTurn = 0;
  return new Readable({
    read() {
      while (next < chunks.length) {
        const chunk = chunks[next++];
        sinceTurn += chunk.length;
        if (sinceTurn >= BYTES_PER_TURN) {
          sinceTurn = 0;
          setImmediate(() => this.push(chunk));
          return;
        }
        if (!this.push(chunk)) return;
      }
      this.push(null);
    },
  });
}

export interface CompressOptions {
  /** The document's flags (brotli's size hint). */
  flags: number;
  /** The JSON is kept too when it is at most this long. */
  rawKeptBytes: number;
}

/** A document written slice by slice — a turn of the event loop between slices — into its kept forms. */
export async function compressSlices(slices: Iterable<string>, options: CompressOptions): Promise<Built> {
  const gzip = createGzip();
  const br = createBrotliCompress({
    params: {
      [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      // Fed slices without a hint, the encoder picks small blocks (4.2 MB instead of 3.7 at
      // 10,000 flags of ten rules); a flag is ~1–11 KB.
      [constants.BROTLI_PARAM_SIZE_HINT]: Math.min(options.flags * 4096, 1 << 30),
    },
  });
  const compressed = Promise.all([collect(gzip), collect(br)]);
  let raw: Buffer[] | null = [];
  let block: Buffer[] = [];
  let blockLength = 0;
  let rawLength = 0;
  try {
    for (const slice of slices) {
      const bytes = Buffer.from(slice, 'utf8');
      rawLength += bytes.length;
      if (raw && rawLength <= options.rawKeptBytes) {
        block.push(bytes);
        blockLength += bytes.length;
        if (blockLength >= RAW_BLOCK_BYTES) {
          raw.push(Buffer.concat(block, blockLength));
          block = [];
          blockLength = 0;
        }
      } else raw = null;
      await Promise.all([write(gzip, bytes), write(br, bytes)]);
      await nextTurn();
    }
  } catch (err) {
    gzip.destroy();
    br.destroy();
    throw err;
  }
  gzip.end();
  br.end();
  if (raw && blockLength > 0) raw.push(Buffer.concat(block, blockLength));
  const [gzipped, brotli] = await compressed;
  return { raw, rawLength, gzip: gzipped, br: brotli };
}

/** Writes, waiting for the compressor to drain when its buffer is full (memory stays bounded). */
async function write(stream: Gzip | BrotliCompress, bytes: Buffer): Promise<void> {
  if (!stream.write(bytes)) await once(stream, 'drain');
}

function collect(stream: Gzip | BrotliCompress): Promise<Pieces> {
  return new Promise((resolve, reject) => {
    const pieces: Pieces = { chunks: [], length: 0 };
    stream.on('data', (chunk: Buffer) => {
      pieces.chunks.push(chunk);
      pieces.length += chunk.length;
    });
    stream.on('end', () => resolve(pieces));
    stream.on('error', reject);
  });
}

/** br when accepted, then gzip, else identity (`Accept-Encoding`, with q-values; q=0 refuses). */
export function chooseEncoding(header: string | string[] | undefined): Encoding {
  const accepted = new Map<string, number>();
  for (const part of [header ?? ''].flat().join(',').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (name === '') continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    accepted.set(name, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  const weight = (name: string) => accepted.get(name) ?? accepted.get('*') ?? 0;
  if (weight('br') > 0 && weight('br') >= weight('gzip')) return 'br';
  if (weight('gzip') > 0) return 'gzip';
  return 'identity';
}
