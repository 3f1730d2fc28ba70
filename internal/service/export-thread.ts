import { setImmediate as nextTurn } from 'node:timers/promises';
import type { DbConfig } from '../config';
import { exportText, streamOptions, type BulkExporter, type BulkExportOptions } from '../ext';
import type { Store } from '../storage';
import { errorFrom, type ExportMessage, type MoreMessage } from './bulk-thread-protocol';
import { startBulkThread } from './bulk-worker-source';
import { sqliteFileOf } from './database';
import { Inbox, inboxOf } from './thread-inbox';

/**
 * The bulk export route's exporter: each export on a worker thread of its own, with its own
 * connection, reading one consistent state and encoding it there (100,000 flags took 4 minutes
 * of list requests through the API, holding the server's loop up to 400 ms at a time). The text
 * comes back in chunks as the reader takes them: the thread runs a few chunks ahead at most, so
 * a slow reader holds the export, not the server's memory. A reader that goes away ends the
 * thread. An in-memory SQLite database has no second connection: it exports on the server's
 * thread, a page of flags per turn of the event loop.
 */

export function threadedExporter(db: DbConfig, store: Store): BulkExporter {
  if (sqliteFileOf(db) === ':memory:') return (options) => exportInProcess(store, options);
  return (options) => exportOnThread(db, options);
}

async function* exportOnThread(db: DbConfig, options: BulkExportOptions): AsyncGenerator<Uint8Array> {
  const worker = await startBulkThread({ kind: 'export', db, options });
  const inbox = inboxOf<ExportMessage>(worker, 'export', 'export fewer namespaces at a time');
  let finished = false;
  try {
    for (;;) {
      const message = await inbox.take();
      if ('error' in message) throw errorFrom(message.error);
      if ('end' in message) return void (finished = true);
      yield message.chunk;
      // The reader took the chunk: room for one more.
      worker.postMessage({ more: true } satisfies MoreMessage);
    }
  } finally {
    // Ended early (the reader went away, an error): the thread has nothing left to do.
    if (!finished) await worker.terminate();
  }
}

/** In-memory SQLite: the same text, produced as it is pulled (a page of flags per pull at most). */
async function* exportInProcess(store: Store, options: BulkExportOptions): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  const pieces = new Inbox<{ text: string; taken: () => void } | null>();
  let abandoned = false;
  // Small pages: a page is read and encoded in one turn (500 flags of four rules held it ~450 ms).
  const done = exportText(store, { ...streamOptions(options), flagsPerRead: 50 }, options.encoding, (text) => {
    if (abandoned) throw new Error('the reader went away');
    return new Promise<void>((taken) => pieces.put({ text, taken }));
  })
    .then(() => pieces.put(null))
    .catch((err: Error) => pieces.fail(err));
  let current: { taken: () => void } | null = null;
  try {
    for (let piece = await pieces.take(); piece !== null; piece = await pieces.take()) {
      current = piece;
      if (piece.text !== '') yield encoder.encode(piece.text);
      // SQLite answers synchronously: without a turn here the whole export is one macrotask.
      await nextTurn();
      piece.taken();
    }
  } finally {
    // Ended early: the export is let go on at its next piece, and fails there.
    abandoned = true;
    current?.taken();
    await done;
  }
}
