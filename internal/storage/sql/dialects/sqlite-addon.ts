import { createRequire } from 'node:module';
import { cachedFile, executableAsset } from '../../../core/cache-dir';

/**
 * better-sqlite3's native addon. Inside the single executable it travels as a SEA asset: it is
 * written once to a per-user cache directory named after its hash (core/cache-dir.ts) and
 * loaded with `process.dlopen`. Elsewhere (tests, `node dist/pennon.cjs`) it comes from node_modules.
 */

const ASSET = 'better_sqlite3.node';

let loaded: object | undefined;

/**
 * better-sqlite3's `nativeBinding`: the loaded addon inside the executable, else its path in
 * node_modules (the bundle moved better-sqlite3's own files, so it cannot find it by itself).
 */
export function sqliteAddon(): object | string {
  if (loaded) return loaded;
  const asset = executableAsset(ASSET);
  if (!asset) return sqliteAddonPath();
  const file = cachedFile('native', ASSET, asset);
  const module = { exports: {} };
  process.dlopen(module, file);
  loaded = module.exports;
  return loaded;
}

function sqliteAddonPath(): string {
  return createRequire(__filename).resolve('better-sqlite3/build/Release/better_sqlite3.node');
}
