import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * Files the executable carries inside itself but must hand to something that reads files (the
 * SQLite addon to `process.dlopen`, the import thread's script to `new Worker`, the dashboard to
 * @fastify/static): written once to a per-user cache directory, in places named after their
 * content, so versions never mix and processes starting together never see half a file.
 */

interface Sea {
  isSea(): boolean;
  getAsset(key: string): ArrayBuffer;
}

/** An asset the single executable carries (scripts/build/sea.mjs), or null outside it. */
export function executableAsset(key: string): Buffer | null {
  let sea: Sea;
  try {
    // `node:sea` exists from Node 20.12; it is only meaningful inside the executable.
    sea = createRequire(__filename)('node:sea') as Sea;
  } catch {
    return null;
  }
  return sea.isSea() ? Buffer.from(sea.getAsset(key)) : null;
}

/** Where files of `kind` go: $XDG_CACHE_HOME (or ~/.cache)/pennon/<kind>, else the temp directory. */
export function cacheRoots(kind: string): string[] {
  const xdg = process.env.XDG_CACHE_HOME;
  return [join(xdg && xdg !== '' ? xdg : join(homedir(), '.cache'), 'pennon', kind), join(tmpdir(), `pennon-${kind}`)];
}

/**
 * `bytes` as the file <root>/<hash of bytes>/<name> in the first cache root that can be
 * written: a temporary file renamed into place, or the file already there.
 */
export function cachedFile(kind: string, name: string, bytes: Buffer): string {
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  for (const root of cacheRoots(kind)) {
    const file = join(root, digest, name);
    try {
      if (existsSync(file) && statSync(file).size === bytes.length) return file;
      mkdirSync(dirname(file), { recursive: true });
      const temporary = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      writeFileSync(temporary, bytes, { mode: 0o755 });
      renameSync(temporary, file);
      return file;
    } catch {
      // Not writable (read-only home, say): try the next place.
    }
  }
  throw new Error(`cannot write ${name} to a cache directory ($XDG_CACHE_HOME, ~/.cache or the temp directory)`);
}
