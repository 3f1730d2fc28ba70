import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import { PennonError, type AuditEvent, type AuditQuery } from '../core';
import { caCertificate, FlagFileError, SnapshotAssembler, type FlagFileBytes, type GitObjects, type ObjectsOptions, type SnapshotBuilder } from '../git';
import { errorFrom, movable, threadFailure, type GitCall, type GitReply, type GitSnapshotMessage, type MoreMessage } from './bulk-thread-protocol';
import { startBulkThread } from './bulk-worker-source';
import { inboxOf } from './thread-inbox';

/** Flags compiled per turn of the event loop (a few milliseconds at ten rules per flag). */
const FLAGS_PER_SLICE = 100;

/**
 * The Git environments' snapshot builder for `serve`: a commit's flag files are decoded, checked
 * and turned into domain data on a thread of their own (bulk-worker.ts), which sends the
 * namespaces back a page of flags at a time; here each page is compiled a slice at a time, a
 * turn of the event loop between slices, and the snapshot swapped in whole when done. Built on
 * the server's thread, 10,000 flags in one file held it 4.7-5.8 s per commit (YAML decoding, and
 * a SHA-1 per positional id). A bad file rejects with the same FlagFileError as in-process.
 */
export function threadedSnapshotBuilder(): SnapshotBuilder {
  return async (files, commit, committedAt) => {
    // The files' bytes are moved to the thread, not copied, and decoded to text there.
    const moved = movable(files);
    const worker = await startBulkThread({ kind: 'git-snapshot', files: moved.files, commit, committedAt }, moved.transfer);
    const inbox = inboxOf<GitSnapshotMessage>(worker, 'Git snapshot', 'give the process more memory (NODE_OPTIONS=--max-old-space-size)');
    const assembler = new SnapshotAssembler(commit, FLAGS_PER_SLICE, () => nextTurn());
    let finished = false;
    try {
      for (;;) {
        const message = await inbox.take();
        if ('error' in message) throw message.file !== undefined ? new FlagFileError(message.file, message.detail ?? message.error.message) : errorFrom(message.error);
        if ('end' in message) {
          finished = true;
          return assembler.finish();
        }
        worker.postMessage({ more: true } satisfies MoreMessage);
        await assembler.add(message.page);
      }
    } finally {
      if (!finished) await worker.terminate();
    }
  };
}

/**
 * A storage's Git objects on a thread of their own, for `serve`: isomorphic-git indexes a fetched
 * pack (inflating and hashing every object) and inflates a blob in synchronous JavaScript, which
 * held the event loop ~75 ms each for one 17 MB flag file. The thread holds the repository (memfs
 * or on disk) for as long as the storage is open; a thread that fails is replaced at the next
 * call, which fetches again into a fresh repository.
 */
export function threadedGitObjects(options: ObjectsOptions): GitObjects {
  // The CA file is read here and sent as text: a missing one fails the start, as in-process.
  const ca = caCertificate(options.storage) ?? '';
  return new ThreadedGitObjects({ ...options, storage: { ...options.storage, ca_cert_bytes: ca, ca_cert_path: '' } });
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

class ThreadedGitObjects implements GitObjects {
  private starting: Promise<Worker> | null = null;
  private current: Worker | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (err: Error) => void }>();
  private closed = false;

  constructor(private readonly options: ObjectsOptions) {}

  fetch(): Promise<string | null> {
    return this.call({ op: 'fetch', args: [] }) as Promise<string | null>;
  }

  fetchedBefore(): Promise<string | null> {
    return this.call({ op: 'fetchedBefore', args: [] }) as Promise<string | null>;
  }

  files(commit: string, directory: string): Promise<FlagFileBytes[]> {
    return this.call({ op: 'files', args: [commit, directory] }) as Promise<FlagFileBytes[]>;
  }

  committedAt(commit: string): Promise<number> {
    return this.call({ op: 'committedAt', args: [commit] }) as Promise<number>;
  }

  /** Walked, compared and decoded on the thread: only the events come back. */
  history(tip: string, directory: string, query: AuditQuery): Promise<AuditEvent[]> {
    return this.call({ op: 'history', args: [tip, directory, query] }) as Promise<AuditEvent[]>;
  }

  async close(): Promise<void> {
    this.closed = true;
    const starting = this.starting;
    this.starting = null;
    if (starting) await (await starting.catch(() => null))?.terminate();
  }

  private async call(request: DistributiveOmit<GitCall, 'id'>): Promise<unknown> {
    if (this.closed) throw new PennonError('unavailable', 'the Git storage is closed');
    if (!this.starting) {
      const starting = this.start();
      this.starting = starting;
      starting.catch(() => {
        if (this.starting === starting) this.starting = null;
      });
    }
    const worker = await this.starting;
    // Gone since (its exit already failed what was waiting): a call sent now would never be answered.
    if (this.current !== worker) return this.call(request);
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, ...request } as GitCall);
    });
  }

  private async start(): Promise<Worker> {
    const { storage, credential } = this.options;
    const worker = await startBulkThread({ kind: 'git-objects', storage, credential });
    this.current = worker;
    // Its calls wait on it, not the process: stopping the server closes it.
    worker.unref();
    worker.on('message', (reply: GitReply) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      if ('error' in reply) waiting.reject(errorFrom(reply.error));
      else waiting.resolve(reply.result);
    });
    // The next call starts a new thread (its repository fetched afresh).
    const failAll = (err: Error) => {
      if (this.current === worker) [this.current, this.starting] = [null, null];
      for (const { reject } of this.pending.values()) reject(err);
      this.pending.clear();
    };
    worker.once('error', (err: Error & { code?: string }) => failAll(threadFailure(err, 'Git', 'give the process more memory (NODE_OPTIONS=--max-old-space-size)')));
    worker.once('exit', (code) => failAll(new PennonError('internal', `the Git thread stopped (exit code ${code})`)));
    return worker;
  }
}
