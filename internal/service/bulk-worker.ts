import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../core';
import { exportText, importBulk, streamOptions } from '../ext';
import type { Change } from '../storage';
import { LocalGitObjects } from '../git/objects';
import { asText, FlagFileError, snapshotData } from '../git/snapshot';
import { snapshotPages } from '../git/snapshot-pages';
import { CREDITS, threadError, type BodyMessage, type BulkJob, type ExportMessage, type GitCall, type GitReply, type GitSnapshotMessage, type ImportReply, type MoreMessage, movable } from './bulk-thread-protocol';
import { openStore } from './database';

/**
 * A bulk thread's side (import-thread.ts, export-thread.ts, git-thread.ts): one job — an import
 * or an export on a connection of its own, a Git snapshot, or a storage's Git objects. An import
 * decodes, checks and writes the body it is sent, then replies once — the result and the changes its transaction committed, or the error
 * in plain data. An export reads one consistent state and sends its text in chunks, running
 * ahead of the server by a few at most; a Git snapshot reads the flag files it is given and
 * sends the commit's namespaces back in pages, likewise; a Git objects thread fetches and reads
 * a storage's repository for as long as the server keeps it. Bundled on its own
 * (esbuild.config.mjs) and started from that code, so it holds only storage, the document format
 * and the Git reading.
 */

const port = parentPort!;

/** The body as the server's thread sends it (BodyMessage), as text. */
function receiveBody(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    const onMessage = (message: BodyMessage) => {
      if ('chunk' in message) return void chunks.push(message.chunk);
      port.off('message', onMessage);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    port.on('message', onMessage);
  });
}

async function runImport(job: BulkJob & { kind: 'import' }): Promise<void> {
  const text = await receiveBody();
  const { connection, store } = openStore(job.db, systemClock(), null, job.auditSinks);
  const changes: Change[] = [];
  store.onChange((change) => changes.push(change));
  let audited = 0;
  store.onAudited((events) => (audited += events));
  let reply: ImportReply;
  try {
    reply = { ok: true, result: await importBulk(job.origin ? store.as(job.origin) : store, text, job.options), changes, audited };
  } catch (err) {
    reply = { ok: false, error: threadError(err) };
  } finally {
    await connection.close().catch(() => undefined);
  }
  port.postMessage(reply);
}

/** Characters of text per chunk sent (a chunk is moved, not copied). */
const EXPORT_CHUNK = 256 * 1024;

/**
 * The server's credits (MoreMessage): `take()` resolves when the thread may send one more chunk
 * or page, so it runs at most CREDITS ahead of what the server has taken.
 */
function credits(): { take(): Promise<void>; stop(): void } {
  let left = CREDITS;
  let wake: (() => void) | null = null;
  const onMessage = (_message: MoreMessage) => {
    left++;
    wake?.();
    wake = null;
  };
  port.on('message', onMessage);
  return {
    async take() {
      while (left === 0) await new Promise<void>((resolve) => (wake = resolve));
      left--;
    },
    stop: () => port.off('message', onMessage),
  };
}

async function runExport(job: BulkJob & { kind: 'export' }): Promise<void> {
  const gate = credits();
  const encoder = new TextEncoder();
  const send = (message: ExportMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  let pending = '';
  const flush = async () => {
    if (pending === '') return;
    await gate.take();
    const chunk = encoder.encode(pending);
    pending = '';
    send({ chunk }, [chunk.buffer as ArrayBuffer]);
  };
  const { connection, store } = openStore(job.db, systemClock());
  try {
    await exportText(store, streamOptions(job.options), job.options.encoding, async (text) => {
      pending += text;
      if (pending.length >= EXPORT_CHUNK) await flush();
    });
    await flush();
    send({ end: true });
  } catch (err) {
    send({ error: threadError(err) });
  } finally {
    gate.stop();
    await connection.close().catch(() => undefined);
  }
}

/** Flags per page of a Git snapshot: a message the server's thread reads back in a few milliseconds. */
const FLAGS_PER_PAGE = 250;

/** A commit's flag files read, checked and sent back as plain data in pages; the server compiles them. */
async function runGitSnapshot(job: BulkJob & { kind: 'git-snapshot' }): Promise<void> {
  const gate = credits();
  const send = (message: GitSnapshotMessage) => port.postMessage(message);
  try {
    for (const page of snapshotPages(snapshotData(asText(job.files), job.commit, job.committedAt), FLAGS_PER_PAGE)) {
      await gate.take();
      send({ page });
    }
    send({ end: true });
  } catch (err) {
    send(err instanceof FlagFileError ? { error: threadError(err), file: err.file, detail: err.detail } : { error: threadError(err) });
  } finally {
    gate.stop();
  }
}

/**
 * A storage's Git objects for as long as the server keeps the thread: each call answered with its
 * id. Files are copied out of isomorphic-git's buffers (its cache may keep them) and moved.
 */
function runGitObjects(job: BulkJob & { kind: 'git-objects' }): void {
  const objects = new LocalGitObjects({ storage: job.storage, credential: job.credential });
  port.on('message', async (call: GitCall) => {
    const { id } = call;
    try {
      if (call.op === 'files') {
        const files = await objects.files(...call.args);
        const moved = movable(files.map(({ path, bytes }) => ({ path, bytes: bytes.slice() })));
        port.postMessage({ id, result: moved.files } satisfies GitReply, moved.transfer);
      } else {
        const result =
          call.op === 'fetch' ? await objects.fetch()
          : call.op === 'fetchedBefore' ? await objects.fetchedBefore()
          : call.op === 'history' ? await objects.history(...call.args)
          : await objects.committedAt(...call.args);
        port.postMessage({ id, result } satisfies GitReply);
      }
    } catch (err) {
      port.postMessage({ id, error: threadError(err) } satisfies GitReply);
    }
  });
}

// With the job done, nothing listens on the port any more: the thread ends (a Git objects thread listens until terminated).
const job = (workerData as { job: BulkJob }).job;
void (job.kind === 'import' ? runImport(job) : job.kind === 'export' ? runExport(job) : job.kind === 'git-objects' ? runGitObjects(job) : runGitSnapshot(job));
