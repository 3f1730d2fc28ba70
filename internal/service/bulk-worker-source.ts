import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { cachedFile, executableAsset } from '../core/cache-dir';
import type { BulkJob } from './bulk-thread-protocol';

/**
 * The bulk threads' script — imports, exports, Git snapshots and objects: bulk-worker.ts bundled alone,
 * wrapped so that its `__filename` is the one `startBulkThread` gives — as a file for
 * `new Worker`. The build writes it beside the bundle (dist/bulk-worker.cjs) and the executable
 * carries it as an asset, written once to the cache directory, as the SQLite addon is; neither
 * copies it onto the server's thread. Running from source (tests, development) it is bundled on first use by esbuild, a
 * development dependency, in esbuild's own process.
 */

/** The script's name, set by the build (esbuild's `define`); undefined from source. */
declare const __PENNON_BULK_WORKER__: string | undefined;

/** Wraps the thread's code: `__filename` in it is the value the thread is given (the build writes the same). */
const SCRIPT_HEAD = '(function (__filename) {';
const SCRIPT_TAIL = "})(require('node:worker_threads').workerData.filename);";

let script: Promise<string> | null = null;

async function bulkWorkerFile(): Promise<string> {
  script ??= locate();
  const file = await script;
  if (existsSync(file)) return file;
  // Removed since (a temp-directory cleaner, say): written again.
  script = locate();
  return script;
}

/**
 * A thread doing `job`. Its code resolves the SQLite addon (and, from source, packages) from
 * this module's place, whatever file it runs from: its wrapper takes `filename`.
 */
export async function startBulkThread(job: BulkJob, transferList: ArrayBuffer[] = []): Promise<Worker> {
  return new Worker(await bulkWorkerFile(), { workerData: { filename: __filename, job }, transferList });
}

async function locate(): Promise<string> {
  if (typeof __PENNON_BULK_WORKER__ === 'string') {
    const asset = executableAsset(__PENNON_BULK_WORKER__);
    return asset ? cachedFile('threads', __PENNON_BULK_WORKER__, asset) : join(__dirname, __PENNON_BULK_WORKER__);
  }
  const esbuild = createRequire(__filename)('esbuild') as typeof import('esbuild');
  const result = await esbuild.build({
    entryPoints: [join(__dirname, 'bulk-worker.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    write: false,
    loader: { '.sql': 'text', '.proto': 'text' },
    banner: { js: SCRIPT_HEAD },
    footer: { js: SCRIPT_TAIL },
    logLevel: 'silent',
  });
  return cachedFile('threads', 'bulk-worker.cjs', Buffer.from(result.outputFiles[0].contents));
}
