import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/**
 * better-sqlite3's native addon. Inside the single executable it travels as a SEA asset: it is
 * written once to a per-user cache directory named after its hash (a temporary file renamed
 * into place, so processes starting together never see half a file) and loaded with
 * `process.dlopen`. Elsewhere (tests, `node dist/pennon.cjs`) it comes from node_modules.
 */

const ASSET = 'better_sqlite3.node';

interface Sea {
  isSea(): boolean;
  getAsset(key: string): ArrayBuffer;
}

function sea(): Sea | null {
  try {
    // `node:sea` exists from Node 20.12; it is only meaningful inside the executable.
    const mod = createRequire(__filename)('node:sea') as Sea;
    return mod.isSea() ? mod : null;
  } catch {
    return null;
  }
}

function cacheRoot(): string {
  const xdg = process.env.XDG_CACHE_HOME;
  return join(xdg && xdg !== '' ? xdg : join(homedir(), '.cache'), 'pennon', 'native');
}

function extract(bytes: Buffer): string {
  const digest = createHash('sha256').update(bytes).digest('hex').slice(0, 16);
  for (const root of [cacheRoot(), join(tmpdir(), 'pennon-native')]) {
    const file = join(root, digest, ASSET);
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
  throw new Error('cannot write the SQLite driver to a cache directory ($XDG_CACHE_HOME, ~/.cache or the temp directory)');
}

let loaded: object | undefined;

/**
 * better-sqlite3's `nativeBinding`: the loaded addon inside the executable, else its path in
 * node_modules (the bundle moved better-sqlite3's own files, so it cannot find it by itself).
 */
export function sqliteAddon(): object | string {
  if (loaded) return loaded;
  const executable = sea();
  if (!executable) return sqliteAddonPath();
  const file = extract(Buffer.from(executable.getAsset(ASSET)));
  const module = { exports: {} };
  process.dlopen(module, file);
  loaded = module.exports;
  return loaded;
}

function sqliteAddonPath(): string {
  return createRequire(__filename).resolve('better-sqlite3/build/Release/better_sqlite3.node');
}
