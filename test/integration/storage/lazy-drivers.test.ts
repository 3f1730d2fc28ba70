import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Drivers are imported on first use: a SQLite instance never loads pg or mysql2 (their start-up
 * cost, and no reason to have them at all). Checked in a process of its own — a test worker may
 * have loaded them for another file — running the storage room bundled with its packages left
 * external, as Node loads them; the other schemes are the control that the check can see a
 * driver load.
 */
const ROOT = join(__dirname, '../../..');
const OUT = join(ROOT, 'test-output', `lazy-drivers-${process.pid}`);

const ENTRY = `
import { systemClock } from './internal/core';
import { openDatabase, prepareSchema, storeFor } from './internal/storage';

async function main(url: string) {
  const connection = openDatabase(url);
  const store = storeFor(connection, systemClock());
  if (url.startsWith('file:')) {
    await prepareSchema(connection);
    await store.createFlag('default', { key: 'f', name: 'F', description: '', enabled: true, type: 'VARIANT_FLAG_TYPE', metadata: null });
    await store.loadNamespace('default');
  } else {
    // Nothing listens on port 1: the query fails, after loading the driver.
    await store.getFlag('default', 'f').catch(() => undefined);
  }
  await connection.close();
  const drivers = new Set(Object.keys(require.cache).flatMap((path) => /node_modules\\/(pg|mysql2)\\//.exec(path)?.[1] ?? []));
  console.log(JSON.stringify([...drivers]));
}
main(process.argv[2]).catch((err) => { console.error(err); process.exit(1); });
`;

async function driversLoadedFor(url: string): Promise<string[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [join(OUT, 'storage.cjs'), url], { cwd: ROOT });
  return JSON.parse(stdout) as string[];
}

describe('database drivers load lazily', () => {
  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    await build({
      stdin: { contents: ENTRY, resolveDir: ROOT, loader: 'ts', sourcefile: 'lazy-drivers-entry.ts' },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      packages: 'external',
      loader: { '.sql': 'text' },
      outfile: join(OUT, 'storage.cjs'),
      logLevel: 'error',
    });
  });
  afterAll(() => rmSync(OUT, { recursive: true, force: true }));

  it('a SQLite store writes and reads without loading pg or mysql2', async () => {
    expect(await driversLoadedFor(`file:${join(OUT, 'pennon.db')}`)).toEqual([]);
  });

  it('each external scheme loads its own driver only', async () => {
    expect(await driversLoadedFor('postgres://pennon@127.0.0.1:1/none')).toEqual(['pg']);
    expect(await driversLoadedFor('cockroach://pennon@127.0.0.1:1/none')).toEqual(['pg']);
    expect(await driversLoadedFor('mysql://pennon@127.0.0.1:1/none')).toEqual(['mysql2']);
  });
});
