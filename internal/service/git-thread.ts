import { setImmediate as nextTurn } from 'node:timers/promises';
import { FlagFileError, SnapshotAssembler, type SnapshotBuilder } from '../git';
import { errorFrom, type GitSnapshotMessage, type MoreMessage } from './bulk-thread-protocol';
import { startBulkThread } from './bulk-worker-source';
import { inboxOf } from './thread-inbox';

/** Flags compiled per turn of the event loop (a few milliseconds at ten rules per flag). */
const FLAGS_PER_SLICE = 100;

/**
 * The Git environments' snapshot builder for `serve`: a commit's flag files are read, checked and
 * turned into domain data on a thread of their own (bulk-worker.ts), which sends the namespaces
 * back a page of flags at a time; here each page is compiled a slice at a time, a turn of the
 * event loop between slices, and the snapshot swapped in whole when done. Built on the server's
 * thread, 10,000 flags in one file held it 4.7-5.8 s per commit (YAML decoding, and a SHA-1 per
 * positional id). A bad file rejects with the same FlagFileError as in-process.
 */
export function threadedSnapshotBuilder(): SnapshotBuilder {
  return async (files, commit, committedAt) => {
    const worker = await startBulkThread({ kind: 'git-snapshot', files, commit, committedAt });
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
