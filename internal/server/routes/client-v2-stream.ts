import type { ServerResponse } from 'node:http';
import type { CompiledNamespace } from '../../evaluation';
import type { LiveSubscriber } from '../../live';
import type { SnapshotUpdate } from '../../snapshots';
import type { HttpStream } from '../live-http';
import type { DigestedBodies, DigestedBody } from './client-v2-body';

/**
 * One client of Flipt v2's snapshot stream (`GET /client/v2/environments/{env}/namespaces/{ns}/stream`),
 * as the LiveHub's subscriber. Each frame is the whole namespace snapshot as grpc-gateway frames a
 * server stream's message: `{"result":` <the snapshot document> `}` and a newline. A frame is sent
 * on connect and after every change, except when its digest is the one the client already has
 * (the request's `digest`, then the last frame's): never the same digest twice in a row.
 *
 * The document is the one built once per snapshot (client-v2-body.ts); a frame hands its shared
 * blocks to the socket as the socket takes them, so a slow client costs a reference, not a copy,
 * and a large frame never sits whole in a write buffer; every stream together hands about a
 * megabyte per turn of the event loop (`TurnBudget`). While a frame is being written, newer
 * snapshots replace one another as the next frame: the client gets the latest, not every step.
 *
 * No heartbeat bytes: Flipt's client-side engine (flipt-client-sdks' flipt-engine-ffi) parses every
 * line as a frame, so an empty or whitespace line would reach it as an invalid-JSON error (the Go
 * client would tolerate one); Flipt sends none either. The hub's heartbeat tick is used instead to
 * find a stalled reader: one that took no byte for a whole interval while more than
 * `streams.max_buffered_bytes` waited for it is dropped (it reconnects). A slow reader that keeps
 * reading is not: what waits for it is a shared frame, not a queue that grows.
 */

const PREFIX = Buffer.from('{"result":');
const SUFFIX = Buffer.from('}\n');
/** The most handed to the socket in one write (a view of the shared block, not a copy). */
const PIECE_BYTES = 64 * 1024;

export interface SnapshotStreamOptions {
  bodies: DigestedBodies;
  /** The digest the client says it has (the request's `digest`; '' for none). */
  digest: string;
  maxBufferedBytes: number;
  /** The line that ends a stream whose frame could not be built (grpc-gateway's error frame). */
  failure: (err: unknown) => string;
}

interface Frame {
  digest: string;
  length: number;
  /** Bytes handed to the response so far. */
  handed: number;
}

export class SnapshotStream implements LiveSubscriber {
  private stream: HttpStream | null = null;
  private res: ServerResponse | null = null;
  /** An update heard before the stream opened: shown instead of the snapshot read at opening. */
  private heard: CompiledNamespace | null = null;
  /** Snapshots asked for: a body that arrives after a newer snapshot was asked for is dropped. */
  private asked = 0;
  /** The digest of the last frame written whole (at first, the client's own). */
  private delivered: string;
  private inFlight: Frame | null = null;
  private next: DigestedBody | null = null;
  private pumping = false;
  private ending = false;
  /** The error line to end with, once the frame in flight (if any) is written. */
  private lastLine: string | undefined;
  /** Bytes handed to the response over the stream's life, and how many of them the socket had taken at the last heartbeat. */
  private handed = 0;
  private takenAtTick = 0;

  constructor(private readonly options: SnapshotStreamOptions) {
    this.delivered = options.digest;
  }

  /** The service began stopping before the stream opened: the route answers 503 instead. */
  get endedEarly(): boolean {
    return this.ending && this.stream === null;
  }

  /** The stream is open (headers sent): shows `current`, or the newer snapshot an update brought meanwhile. */
  open(stream: HttpStream, res: ServerResponse, current: CompiledNamespace): void {
    this.stream = stream;
    this.res = res;
    this.show(this.heard ?? current);
    this.heard = null;
  }

  update(update: SnapshotUpdate): void {
    if (this.stream === null) this.heard = update.snapshot;
    else this.show(update.snapshot);
  }

  heartbeat(): void {
    const res = this.res;
    if (!res || !this.stream?.open) return;
    const frame = this.inFlight;
    const waiting = res.writableLength + (frame ? frame.length - frame.handed : 0);
    const taken = this.handed - res.writableLength;
    if (waiting > this.options.maxBufferedBytes && taken === this.takenAtTick) {
      // Stalled: drop it rather than pin the frame it is not reading.
      res.destroy();
      return;
    }
    this.takenAtTick = taken;
  }

  end(): void {
    this.ending = true;
    this.next = null;
    // A frame being written is finished first, so the client never reads half a line.
    if (this.stream && !this.pumping) this.stream.end(this.lastLine);
  }

  private show(snapshot: CompiledNamespace): void {
    const asked = ++this.asked;
    // A namespace that does not exist (or no longer does) has no snapshot: nothing is sent, as in Flipt.
    if (snapshot.revision === '') {
      this.next = null;
      return;
    }
    this.options.bodies.of(snapshot).then(
      (body) => {
        if (asked === this.asked) this.offer(body);
      },
      (err: unknown) => {
        if (asked === this.asked) this.fail(err);
      },
    );
  }

  private offer(body: DigestedBody): void {
    if (this.ending || !this.stream?.open) return;
    // What the client will hold once the frame in flight is written.
    if (body.digest === (this.inFlight?.digest ?? this.delivered)) {
      this.next = null;
      return;
    }
    this.next = body;
    void this.pump();
  }

  private async pump(): Promise<void> {
    if (this.pumping) return; // the running loop takes `next` when its frame is written
    this.pumping = true;
    try {
      while (this.next && !this.ending && this.stream?.open) {
        const body = this.next;
        this.next = null;
        if (await this.write(body)) this.delivered = body.digest;
      }
    } catch (err) {
      this.lastLine ??= this.options.failure(err);
      this.ending = true;
    } finally {
      this.pumping = false;
      this.inFlight = null;
    }
    if (this.ending) this.stream?.end(this.lastLine);
  }

  /** Writes one frame as the socket takes it; false if the client went away meanwhile. */
  private async write(body: DigestedBody): Promise<boolean> {
    const res = this.res as ServerResponse;
    const stream = this.stream as HttpStream;
    const frame: Frame = { digest: body.digest, length: PREFIX.length + body.length('identity') + SUFFIX.length, handed: 0 };
    this.inFlight = frame;
    const hand = (chunk: Buffer): boolean => {
      frame.handed += chunk.length;
      this.handed += chunk.length;
      return res.write(chunk);
    };
    hand(PREFIX);
    // The kept blocks, paced (a turn of the event loop every megabyte), or decompressed as read;
    // handed in views of at most PIECE_BYTES, since a write's bytes count as waiting until the
    // whole write is taken: a 12 MB block would show no progress to a client reading it slowly.
    for await (const chunk of body.stream('identity') as AsyncIterable<Buffer>) {
      for (let at = 0; at < chunk.length; at += PIECE_BYTES) {
        const piece = chunk.subarray(at, at + PIECE_BYTES);
        const turn = budget.take(piece.length);
        if (turn) await turn;
        if (!stream.open) return false;
        if (!hand(piece)) await drained(res);
      }
    }
    if (!stream.open) return false;
    hand(SUFFIX);
    return true;
  }

  /** A frame that could not be built or written: the stream ends with grpc-gateway's error line. */
  private fail(err: unknown): void {
    this.lastLine ??= this.options.failure(err);
    this.end();
  }
}

/**
 * What every stream of the process hands to its socket per turn of the event loop, together:
 * about a megabyte. A socket whose kernel buffer has room completes a write at once, and its
 * drain comes back in the same task, so without a shared bound a change written to 20 clients
 * of a 5 MB namespace went out in tens of megabytes per task (60 ms of held loop). Writers wait
 * their turn in order.
 */
class TurnBudget {
  private used = 0;
  private readonly waiting: Array<() => void> = [];
  private resetting = false;

  constructor(private readonly bytesPerTurn: number) {}

  /** Nothing while this turn's budget lasts; else a promise of a later turn. */
  take(bytes: number): Promise<void> | undefined {
    this.resetAtNextTurn();
    if (this.used < this.bytesPerTurn && this.waiting.length === 0) {
      this.used += bytes;
      return undefined;
    }
    return new Promise((resolve) =>
      this.waiting.push(() => {
        this.used += bytes;
        resolve();
      }),
    );
  }

  private resetAtNextTurn(): void {
    if (this.resetting) return;
    this.resetting = true;
    setImmediate(() => {
      this.resetting = false;
      this.used = 0;
      while (this.waiting.length > 0 && this.used < this.bytesPerTurn) (this.waiting.shift() as () => void)();
      if (this.waiting.length > 0) this.resetAtNextTurn();
    });
  }
}

const budget = new TurnBudget(1024 * 1024);

/** Resolves when the response can take more, or has closed (then the writer sees it is not open). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
