// Bundles the CLI — and with it the whole service — into one CommonJS file, dist/pennon.cjs,
// which scripts/build/sea.mjs then turns into the single executable dist/pennon. SQL
// migrations are inlined as text, and the dashboard (web/, built first by scripts/build/web.mjs)
// is embedded, so nothing is read from the source tree at run time.
import { build } from 'esbuild';
import { buildWeb, embeddedModule } from './scripts/build/web.mjs';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

function commit() {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return '';
  }
}

/**
 * The licence issuer's Ed25519 public key (32 raw bytes, base64url) that this build verifies
 * licences against: a release build sets PENNON_LICENSE_ISSUER_KEY to the vendor's key; without
 * it the bundle falls back to the test issuer (internal/license/issuer.ts). A malformed value
 * fails the build rather than producing an executable that accepts no licence.
 */
function licenseIssuer() {
  const key = (process.env.PENNON_LICENSE_ISSUER_KEY ?? '').trim();
  if (key !== '' && (!/^[A-Za-z0-9_-]{43}$/.test(key) || Buffer.from(key, 'base64url').length !== 32)) {
    throw new Error('PENNON_LICENSE_ISSUER_KEY must be an Ed25519 public key: 32 bytes in base64url (43 characters)');
  }
  return key;
}

/**
 * umzug's command-line front end pulls in @rushstack's CLI framework (~70 ms of start-up) and
 * is never used here (migrations run through the API): the bundle gets an empty module instead.
 */
const withoutUmzugCli = {
  name: 'without-umzug-cli',
  setup(b) {
    b.onResolve({ filter: /^\.\/cli$/ }, (args) => (/[\\/]umzug[\\/]lib$/.test(args.resolveDir) ? { path: 'umzug-cli', namespace: 'stub' } : undefined));
    b.onLoad({ filter: /^umzug-cli$/, namespace: 'stub' }, () => ({ contents: 'module.exports = {};', loader: 'js' }));
  },
};

/** zod registers every language's error messages; the configuration speaks English only. */
const zodEnglishOnly = {
  name: 'zod-english-only',
  setup(b) {
    b.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]v4[\\/](classic|core|mini)$/.test(args.resolveDir) ? { path: 'zod-locales', namespace: 'stub' } : undefined,
    );
    b.onLoad({ filter: /^zod-locales$/, namespace: 'stub' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(`${process.cwd()}/node_modules/zod/v4/locales/en.js`)};`,
      loader: 'js',
      resolveDir: process.cwd(),
    }));
  },
};

/**
 * mysql2 tries `require('cardinal')` (optional, to colour its debug output) when it loads; in
 * the single executable any require of a non-built-in module prints a warning to stderr.
 * The bundle gets a stand-in that leaves text as it is.
 */
const withoutCardinal = {
  name: 'without-cardinal',
  setup(b) {
    b.onResolve({ filter: /^cardinal$/ }, () => ({ path: 'cardinal', namespace: 'stub' }));
    b.onLoad({ filter: /^cardinal$/, namespace: 'stub' }, () => ({ contents: 'module.exports = { highlight: (text) => text };', loader: 'js' }));
  },
};

/**
 * The built dashboard goes inside the bundle: internal/server/dashboard/embedded.ts (null when
 * running from source) is replaced by a module holding dist/web's files.
 */
const embedWeb = {
  name: 'embed-web',
  setup(b) {
    b.onLoad({ filter: /[\\/]internal[\\/]server[\\/]dashboard[\\/]embedded\.ts$/ }, () => ({ contents: embeddedModule(), loader: 'js' }));
  },
};

/**
 * Leaves the output pure ASCII. esbuild escapes non-ASCII characters in strings but not in regular
 * expression literals (isomorphic-git's /[\ud800-\uFFFF]/ holds a literal U+FFFF): one character
 * outside Latin-1 makes V8 keep the whole script as two-byte text — the 7.7 MB bundle held as
 * 15.5 MB for the life of every process and thread. Inside a regular expression, a \uXXXX escape
 * (a surrogate pair for astral characters) matches what the literal character did, with or
 * without the u flag.
 */
function asciiOnly(file) {
  const text = readFileSync(file, 'utf8');
  const ascii = text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (ascii !== text) writeFileSync(file, ascii);
}

await buildWeb();

/** What the executable's two scripts (the CLI and the bulk threads') are both built with. */
const shared = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // Smaller and quicker to parse; identifiers are kept so stack traces stay readable.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  loader: { '.sql': 'text', '.proto': 'text' },
  // The single executable cannot run `import()` (Node has no dynamic-import callback for a SEA's
  // script: ERR_VM_DYNAMIC_IMPORT_CALLBACK_MISSING), and some packages import built-ins that way
  // (OpenTelemetry's OTLP/HTTP exporter: `import('http')`): esbuild turns every `import()` into
  // a `require` instead.
  supported: { 'dynamic-import': false },
  logLevel: 'warning',
};

/**
 * The bulk threads (imports, exports, Git snapshots and objects) run their own script
 * (internal/service/bulk-worker.ts bundled alone) from a file: dist/bulk-worker.cjs, beside the
 * bundle, which the executable carries as an asset (scripts/build/sea.mjs). The wrapper gives its
 * code the `__filename` of the process that starts it (see internal/service/bulk-worker-source.ts).
 */
const BULK_WORKER = 'bulk-worker.cjs';
await build({
  ...shared,
  plugins: [withoutUmzugCli, zodEnglishOnly, withoutCardinal],
  entryPoints: ['internal/service/bulk-worker.ts'],
  outfile: `dist/${BULK_WORKER}`,
  banner: { js: '(function (__filename) {' },
  footer: { js: "})(require('node:worker_threads').workerData.filename);" },
});
asciiOnly(`dist/${BULK_WORKER}`);

await build({
  ...shared,
  plugins: [withoutUmzugCli, zodEnglishOnly, withoutCardinal, embedWeb],
  entryPoints: ['cmd/main.ts'],
  outfile: 'dist/pennon.cjs',
  sourcemap: 'linked',
  define: {
    __PENNON_VERSION__: JSON.stringify(pkg.version),
    __PENNON_COMMIT__: JSON.stringify(commit()),
    __PENNON_BUILD_DATE__: JSON.stringify(new Date().toISOString()),
    __PENNON_LICENSE_ISSUER__: JSON.stringify(licenseIssuer()),
    __PENNON_BULK_WORKER__: JSON.stringify(BULK_WORKER),
  },
  banner: { js: '#!/usr/bin/env node' },
});
asciiOnly('dist/pennon.cjs');
