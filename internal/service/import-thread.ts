import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Worker } from 'node:worker_threads';
import type { DbConfig } from '../config';
import { PennonError } from '../core';
import { importBulk, type BulkImporter, type BulkImportResult } from '../ext';
import type { AuditSinkSelection, Store } from '../storage';
import { errorFrom, threadFailure, type BodyMessage, type BulkJob, type ImportReply } from './bulk-thread-protocol';
import { sqliteFileOf } from './database';
import { startBulkThread } from './bulk-worker-source';

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

export function threadedImporter(db: DbConfig, store: Store, auditSinks: readonly AuditSinkSelection[] = []): BulkImporter {
  if (sqliteFileOf(db) === ':memory:') return (body, options, origin) => importBulk(origin ? store.as(origin) : store, Buffer.concat(body).toString('utf8'), options);
  return (body, options, origin) => importOnThread({ kind: 'import', db, options, origin, auditSinks }, body, store);
}

/** Bytes of the body handed to the thread per turn of the event loop (each is copied once). */
const BYTES_PER_TURN = 1024 * 1024;

async function importOnThread(job: BulkJob & { kind: 'import' }, body: readonly Uint8Array[], store: Store): Promise<BulkImportResult> {
  const worker = await startBulkThread(job);
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (fn: () => void) => {
      if (settled) return;
      settled = true;
      fn();
    };
    worker.once('message', (reply: ImportReply) =>
      settle(() => {
        if (!reply.ok) return reject(errorFrom(reply.error));
        for (const change of reply.changes) store.announce(change);
        if (reply.audited > 0) store.announceAudited(reply.audited);
        resolve(reply.result);
      }),
    );
    worker.once('error', (err: Error & { code?: string }) => settle(() => reject(threadFailure(err, 'import', 'import it in several smaller documents'))));
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

