// Builds the dashboard (web/) into dist/web/: index.html plus content-hashed, minified assets
// under assets/, each with .gz and .br siblings (served pre-compressed by @fastify/static, so
// the server never compresses them per request). esbuild.config.mjs runs this first and then
// embeds dist/web in the server bundle; the test run's global setup gets it through that.
// Run alone: `node scripts/build/web.mjs`.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export const WEB_OUT = 'dist/web';

/** Builds web/ into `outdir` and returns the list of files written (relative paths, compressed siblings excluded). */
export async function buildWeb({ outdir = WEB_OUT } = {}) {
  // Built beside the target and swapped in, so a server reading dist/web never sees half a build.
  const building = `${outdir}.building-${process.pid}`;
  rmSync(building, { recursive: true, force: true });
  const result = await build({
    entryPoints: ['web/src/main.tsx'],
    outdir: join(building, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    format: 'esm',
    // Browsers of the last few years; no polyfills.
    target: ['chrome109', 'firefox115', 'safari16'],
    platform: 'browser',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: false,
    legalComments: 'none',
    metafile: true,
    define: { 'process.env.NODE_ENV': '"production"' },
    logLevel: 'warning',
  });
  const outputs = Object.keys(result.metafile.outputs).map((file) => relative(building, file));
  const js = outputs.find((f) => f.endsWith('.js'));
  const css = outputs.find((f) => f.endsWith('.css'));
  if (!js || !css) throw new Error(`the dashboard build produced no ${js ? 'CSS' : 'JavaScript'}`);

  // Relative asset URLs: the page is always /, routing lives in the hash.
  const template = readFileSync('web/index.html', 'utf8');
  const html = template.replace('%STYLES%', `<link rel="stylesheet" href="${css}">`).replace('%SCRIPT%', `<script type="module" src="${js}"></script>`);
  if (html.includes('%')) throw new Error('web/index.html: a placeholder was left unfilled');
  writeFileSync(join(building, 'index.html'), html);
  copyIcon(building);

  const files = listFiles(building);
  for (const file of files) compressBeside(join(building, file));
  rmSync(outdir, { recursive: true, force: true });
  mkdirSync(join(outdir, '..'), { recursive: true });
  // renameSync is atomic within one file system, and dist/ is one.
  renameSync(building, outdir);
  return files;
}

function copyIcon(dir) {
  writeFileSync(join(dir, 'favicon.svg'), readFileSync('web/favicon.svg'));
}

function listFiles(dir, prefix = '') {
  const out = [];
  for (const name of readdirSync(join(dir, prefix)).sort()) {
    const rel = prefix === '' ? name : `${prefix}/${name}`;
    if (statSync(join(dir, rel)).isDirectory()) out.push(...listFiles(dir, rel));
    else out.push(rel);
  }
  return out;
}

function compressBeside(file) {
  const bytes = readFileSync(file);
  if (bytes.length < 512) return;
  writeFileSync(`${file}.gz`, gzipSync(bytes, { level: 9 }));
  writeFileSync(`${file}.br`, brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
}

/**
 * Every file of a built dist/web (compressed siblings included) as one JavaScript module for the
 * server bundle, with a digest of them all that names the per-version directory the executable
 * writes them to (internal/server/dashboard/assets.ts).
 */
export function embeddedModule(dir = WEB_OUT) {
  const files = {};
  const hash = createHash('sha256');
  for (const file of listFiles(dir)) {
    const bytes = readFileSync(join(dir, file));
    hash.update(file).update('\0').update(bytes);
    files[file] = bytes.toString('base64');
  }
  return `export const EMBEDDED_WEB = ${JSON.stringify({ digest: hash.digest('hex').slice(0, 16), files })};\n`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const files = await buildWeb();
  console.log(`built ${WEB_OUT}/ (${files.map((f) => basename(f)).join(', ')})`);
}
