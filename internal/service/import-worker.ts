import { parentPort, workerData } from 'node:worker_threads';
import { isPennonError, systemClock } from '../core';
import { importBulk } from '../ext';
import type { Change } from '../storage';
import { openStore } from './database';
import type { BodyMessage, ImportJob, ImportReply, ThreadError } from './import-thread';

/**
 * The import thread's side (see import-thread.ts): the job's text decoded, checked and written
 * on a connection of its own, then one reply — the result and the changes its transaction
 * committed, or the error in plain data. Bundled on its own (esbuild.config.mjs) and started
 * from that code, so it holds only storage and the document format.
 */

function threadError(err: unknown): ThreadError {
  const error = err instanceof Error ? err : new Error(String(err));
  const cause = isPennonError(error) ? (error.cause as { code?: unknown } | undefined) : (error as { code?: unknown });
  const code = typeof cause?.code === 'string' || typeof cause?.code === 'number' ? cause.code : undefined;
  return { kind: isPennonError(error) ? error.kind : null, message: error.message, name: error.name, stack: error.stack, code };
}

/** The body as the server's thread sends it (BodyMessage), as text. */
function receiveBody(): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Uint8Array[] = [];
    const port = parentPort!;
    const onMessage = (message: BodyMessage) => {
      if ('chunk' in message) return void chunks.push(message.chunk);
      port.off('message', onMessage);
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    port.on('message', onMessage);
  });
}

async function run(job: ImportJob): Promise<ImportReply> {
  const text = await receiveBody();
  const { connection, store } = openStore(job.db, systemClock());
  const changes: Change[] = [];
  store.onChange((change) => changes.push(change));
  try {
    return { ok: true, result: await importBulk(store, text, job.options), changes };
  } catch (err) {
    return { ok: false, error: threadError(err) };
  } finally {
    await connection.close().catch(() => undefined);
  }
}

// With the body read, nothing listens on the port any more: the thread ends after this reply.
void run((workerData as { job: ImportJob }).job).then((reply) => parentPort!.postMessage(reply));
