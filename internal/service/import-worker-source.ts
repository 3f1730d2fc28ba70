import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The import thread's code (import-worker.ts bundled into one script). Running from source
 * (tests, development) it is bundled here on first use by esbuild, a development dependency;
 * the build replaces this module with the code bundled at build time (esbuild.config.mjs), so
 * the executable never needs a file or a bundler to start the thread.
 */

let bundled: Promise<string> | null = null;

export function importWorkerCode(): Promise<string> {
  // esbuild bundles in its own process: this thread only waits.
  bundled ??= (createRequire(import.meta.url)('esbuild') as typeof import('esbuild'))
    .build({
      entryPoints: [fileURLToPath(new URL('./import-worker.ts', import.meta.url))],
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      write: false,
      loader: { '.sql': 'text' },
      logLevel: 'silent',
    })
    .then((result) => result.outputFiles[0].text);
  return bundled;
}

/** Where the thread's code resolves packages and the SQLite addon from: this file's place. */
export function importWorkerFilename(): string {
  return fileURLToPath(import.meta.url);
}
