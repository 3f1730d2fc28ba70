import { parentPort, workerData } from 'node:worker_threads';
import { systemClock } from '../core';
import { exportText, importBulk, streamOptions } from '../ext';
import type { Change } from '../storage';
import { EXPORT_CREDITS, threadError, type BodyMessage, type BulkJob, type ExportMessage, type ImportReply, type MoreMessage } from './bulk-thread-protocol';
import { openStore } from './database';

/**
 * A bulk thread's side (import-thread.ts, export-thread.ts): one job on a connection of its own.
 * An import decodes, checks and writes the body it is sent, then replies once — the result and
 * the changes its transaction committed, or the error in plain data. An export reads one
 * consistent state and sends its text in chunks, running ahead of the server by a few at most.
 * Bundled on its own (esbuild.config.mjs) and started from that code, so it holds only storage
 * and the document format.
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
  const { connection, store } = openStore(job.db, systemClock());
  const changes: Change[] = [];
  store.onChange((change) => changes.push(change));
  let reply: ImportReply;
  try {
    reply = { ok: true, result: await importBulk(store, text, job.options), changes };
  } catch (err) {
    reply = { ok: false, error: threadError(err) };
  } finally {
    await connection.close().catch(() => undefined);
  }
  port.postMessage(reply);
}

/** Characters of text per chunk sent (a chunk is moved, not copied). */
const EXPORT_CHUNK = 256 * 1024;

async function runExport(job: BulkJob & { kind: 'export' }): Promise<void> {
  let credits = EXPORT_CREDITS;
  let wake: (() => void) | null = null;
  const onMessage = (_message: MoreMessage) => {
    credits++;
    wake?.();
    wake = null;
  };
  port.on('message', onMessage);
  const encoder = new TextEncoder();
  const send = (message: ExportMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);
  let pending = '';
  const flush = async () => {
    if (pending === '') return;
    while (credits === 0) await new Promise<void>((resolve) => (wake = resolve));
    credits--;
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
    port.off('message', onMessage);
    await connection.close().catch(() => undefined);
  }
}

// With the job done, nothing listens on the port any more: the thread ends.
const job = (workerData as { job: BulkJob }).job;
void (job.kind === 'import' ? runImport(job) : runExport(job));
