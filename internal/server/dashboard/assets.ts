import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cacheRoots } from '../../core/cache-dir';
import { EMBEDDED_WEB, type EmbeddedWeb } from './embedded';

/**
 * Where the dashboard's built files are on disk, for @fastify/static (which serves files, not
 * memory). Inside the executable (or `node dist/pennon.cjs`) the files travel in the bundle and
 * are written once to a per-version cache directory (core/cache-dir.ts's roots): a whole
 * directory prepared under a temporary name and renamed into place, so instances starting
 * together never serve half a copy. From source
 * (tests) they are dist/web, built by `node scripts/build/web.mjs` or the test run's setup.
 */
export type DashboardFiles = { dir: string } | { missing: string };

export function dashboardFiles(embedded: EmbeddedWeb | null = EMBEDDED_WEB): DashboardFiles {
  if (embedded) return extract(embedded);
  // internal/server/dashboard → the repository's dist/web.
  const dir = join(__dirname, '..', '..', '..', 'dist', 'web');
  return existsSync(join(dir, 'index.html')) ? { dir } : { missing: `${dir} holds no build (run \`node scripts/build/web.mjs\`)` };
}

function extract(embedded: EmbeddedWeb): DashboardFiles {
  for (const root of cacheRoots('web')) {
    const dir = join(root, embedded.digest);
    // The marker is written last: a directory without it was never completed.
    if (existsSync(join(dir, '.complete'))) return { dir };
    const temporary = `${dir}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      for (const [name, base64] of Object.entries(embedded.files)) {
        const file = join(temporary, name);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, Buffer.from(base64, 'base64'));
      }
      writeFileSync(join(temporary, '.complete'), '');
      try {
        renameSync(temporary, dir);
      } catch (err) {
        // Another instance got there first (the target exists): use its copy.
        if (!existsSync(join(dir, '.complete'))) throw err;
        rmSync(temporary, { recursive: true, force: true });
      }
      return { dir };
    } catch {
      rmSync(temporary, { recursive: true, force: true });
      // Not writable (read-only home, say): try the next place.
    }
  }
  return { missing: 'cannot write its files to a cache directory ($XDG_CACHE_HOME, ~/.cache or the temp directory)' };
}
