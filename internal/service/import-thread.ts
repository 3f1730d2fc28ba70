import { setImmediate as nextTurn } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import type { DbConfig } from '../config';
import { PennonError, type ErrorKind } from '../core';
import { importBulk, type BulkImporter, type BulkImportOptions, type BulkImportResult } from '../ext';
import type { Change, Store } from '../storage';
import { sqliteFileOf } from './database';
import { importWorkerFile, importWorkerFilename } from './import-worker-source';

/**
 * The bulk import route's importer: each import on a worker thread of its own, with its own
 * connection. Decoding a document is synchronous (17 MB of YAML, 10,000 flags, hold a thread
 * ~2 s) and so is SQLite's driver: on the server's thread either would stop every evaluation
 * for as long. The thread replies with the result and the changes its transaction committed,
 * which the store announces as its own (snapshots, other workers and instances hear them as
 * they hear any write); its errors come back as the same kinds and words. The thread's heap
 * goes with it, and an import too large for it fails alone instead of taking the server down.
 * An in-memory SQLite database has no second connection: it imports on the server's thread.
 */

export interface ImportJob {
  db: DbConfig;
  options: BulkImportOptions;
}

/** What the server's thread sends after the job: the body's chunks in order, then `end`. */
export type BodyMessage = { chunk: Uint8Array } | { end: true };

export interface ThreadError {
  /** The PennonError's kind; null for any other error. */
  kind: ErrorKind | null;
  message: string;
  name: string;
  stack: string | undefined;
  /** The driver's code behind it, for the error log (ECONNREFUSED, SQLITE_BUSY, …). */
  code: string | number | undefined;
}

export type ImportReply = { ok: true; result: BulkImportResult; changes: Change[] } | { ok: false; error: ThreadError };

export function threadedImporter(db: DbConfig, store: Store): BulkImporter {
  if (sqliteFileOf(db) === ':memory:') return (body, options) => importBulk(store, Buffer.concat(body).toString('utf8'), options);
  return (body, options) => importOnThread({ db, options }, body, store);
}

/** Bytes of the body handed to the thread per turn of the event loop (each is copied once). */
const BYTES_PER_TURN = 1024 * 1024;

async function importOnThread(job: ImportJob, body: readonly Uint8Array[], store: Store): Promise<BulkImportResult> {
  const file = await importWorkerFile();
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    const worker = new Worker(file, {
      workerData: { filename: importWorkerFilename(), job },
    });
    worker.once('message', (reply: ImportReply) =>
      settle(() => {
        if (!reply.ok) return reject(errorFrom(reply.error));
        for (const change of reply.changes) store.announce(change);
        resolve(reply.result);
      }),
    );
    worker.once('error', (err: Error & { code?: string }) =>
      settle(() =>
        reject(
          err.code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? new PennonError('too_large', 'the import needs more memory than its thread may use: import it in several smaller documents', { cause: err })
            : new PennonError('internal', `the import thread failed: ${err.message}`, { cause: err }),
        ),
      ),
    );
    worker.once('exit', (code) => settle(() => reject(new PennonError('internal', `the import thread stopped (exit code ${code}) before it answered`))));
    void sendBody(worker, body, () => settled);
  });
}

/** The body to the thread a megabyte per turn: copying all of it at once held the loop ~50 ms per 17 MB. */
async function sendBody(worker: Worker, body: readonly Uint8Array[], stopped: () => boolean): Promise<void> {
  let sent = 0;
  for (const chunk of body) {
    if (stopped()) return;
    worker.postMessage({ chunk } satisfies BodyMessage);
    sent += chunk.length;
    if (sent >= BYTES_PER_TURN) {
      sent = 0;
      await nextTurn();
    }
  }
  if (!stopped()) worker.postMessage({ end: true } satisfies BodyMessage);
}

function errorFrom(error: ThreadError): Error {
  const cause = Object.assign(new Error(error.message), { name: error.name, stack: error.stack, code: error.code });
  return new PennonError(error.kind ?? 'internal', error.message, { cause });
}
