import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, sep } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, freePort } from '../support/cli';
import { ApiClient, expectStatus } from '../support/server';

/**
 * `dist/pennon` copied alone into an empty directory (no node_modules above it, nothing on
 * PATH, a clean environment with HOME and the XDG directories in temporary places), run as
 * `./pennon` from that directory: it must need nothing but itself.
 */

const VERSION = (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version;
const ADDON = readFileSync(createRequire(__filename).resolve('better-sqlite3/build/Release/better_sqlite3.node'));
/** The executable names its cache folder after the first 16 hex digits of the addon's SHA-256. */
const ADDON_DIR = createHash('sha256').update(ADDON).digest('hex').slice(0, 16);
const COMMANDS = ['serve', 'migrate', 'evaluate', 'token', 'flag', 'config', 'version'];
const SUBCOMMANDS = [...COMMANDS, 'token create', 'token list', 'token delete', 'flag export', 'flag import', 'config validate'];

describe('the single executable, alone in an empty directory', () => {
  let root: string;
  let app: string;
  let dirs: { home: string; data: string; cache: string; path: string };

  const envFor = (extra: Record<string, string> = {}): Record<string, string> => ({
    PATH: dirs.path,
    HOME: dirs.home,
    XDG_DATA_HOME: dirs.data,
    XDG_CACHE_HOME: dirs.cache,
    PENNON_LOG_LEVEL: 'error',
    ...extra,
  });
  const run = (args: string[], extra: Record<string, string> = {}) =>
    execa('./pennon', args, { cwd: app, env: envFor(extra), extendEnv: false, reject: false });
  /** Every file under `dir`, relative to it. */
  const filesUnder = (dir: string): string[] => (existsSync(dir) ? (readdirSync(dir, { recursive: true, withFileTypes: true }) as import('node:fs').Dirent[]) : [])
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(dir.length + 1))
    .sort();

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'pennon-standalone-'));
    app = join(root, 'app');
    dirs = { home: join(root, 'home'), data: join(root, 'data'), cache: join(root, 'cache'), path: join(root, 'empty-bin') };
    for (const d of [app, ...Object.values(dirs)]) mkdirSync(d);
    copyFileSync(CLI, join(app, 'pennon'));
    chmodSync(join(app, 'pennon'), 0o755);
    // No node_modules anywhere above the executable: it cannot lean on an installed package.
    for (let d = app; d !== dirname(d); d = dirname(d)) expect(existsSync(join(d, 'node_modules')), `${d}/node_modules`).toBe(false);
    // A copy of plain node would print its own version: this is the Pennon executable.
    const version = await run(['--version']);
    expect([version.exitCode, version.stdout]).toEqual([0, VERSION]);
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('serves: creates its database under XDG_DATA_HOME, extracts the SQLite driver, manages and evaluates', async () => {
    const port = await freePort();
    const child: ResultPromise = execa('./pennon', ['serve'], {
      cwd: app,
      env: envFor({ PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: String(port), PENNON_SERVER_GRPC_PORT: '0' }),
      extendEnv: false,
      reject: false,
    });
    const api = new ApiClient(`http://127.0.0.1:${port}`);
    try {
      const deadline = Date.now() + 10_000;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`./pennon serve exited: ${(await child).stderr}`);
        const health = await api.get('/health').catch(() => null);
        if (health?.status === 200) {
          expect(health.body).toEqual({ status: 'SERVING' });
          break;
        }
        if (Date.now() > deadline) throw new Error('./pennon serve did not answer /health within 10 s');
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(existsSync(join(dirs.data, 'pennon', 'pennon.db'))).toBe(true);
      expect(filesUnder(dirs.home)).toEqual([]);
      expect(filesUnder(app)).toEqual(['pennon']);
      // The cache holds the SQLite driver and the dashboard's assets (one folder per build digest), nothing else.
      const cached = filesUnder(join(dirs.cache, 'pennon'));
      expect(cached.filter((f) => !f.startsWith(`web${sep}`))).toEqual([join('native', ADDON_DIR, 'better_sqlite3.node')]);
      const web = cached.filter((f) => f.startsWith(`web${sep}`));
      expect(new Set(web.map((f) => f.split(sep)[1])).size).toBe(1);
      expect(web.map((f) => f.split(sep).slice(2).join('/'))).toEqual(expect.arrayContaining(['.complete', 'index.html']));
      const page = await fetch(`http://127.0.0.1:${port}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<script');
      expect(readFileSync(join(dirs.cache, 'pennon', 'native', ADDON_DIR, 'better_sqlite3.node')).equals(ADDON)).toBe(true);

      const p = '/api/v1/namespaces/default';
      expectStatus(await api.post(`${p}/flags`, { key: 'standalone', name: 'Standalone', enabled: true }), 200);
      const off = expectStatus(await api.post(`${p}/flags/standalone/variants`, { key: 'off' }), 200);
      const on = expectStatus(await api.post(`${p}/flags/standalone/variants`, { key: 'on', attachment: '{"copy":"alone"}' }), 200);
      expectStatus(await api.post(`${p}/segments`, { key: 'beta', name: 'Beta' }), 200);
      expectStatus(await api.post(`${p}/segments/beta/constraints`, { type: 'STRING_COMPARISON_TYPE', property: 'group', operator: 'eq', value: 'beta' }), 200);
      const rule = expectStatus(await api.post(`${p}/flags/standalone/rules`, { segmentKey: 'beta', rank: 1 }), 200);
      expectStatus(await api.post(`${p}/flags/standalone/rules/${rule.id}/distributions`, { variantId: on.id, rollout: 100 }), 200);
      expect(off.id).not.toBe(on.id);

      const match = expectStatus(await api.post('/evaluate/v1/variant', { flagKey: 'standalone', entityId: 'u-1', context: { group: 'beta' } }), 200);
      expect(match).toMatchObject({ match: true, variantKey: 'on', variantAttachment: '{"copy":"alone"}', segmentKeys: ['beta'], reason: 'MATCH_EVALUATION_REASON' });
      const miss = expectStatus(await api.post('/evaluate/v1/variant', { flagKey: 'standalone', entityId: 'u-1', context: { group: 'alpha' } }), 200);
      expect(miss).toMatchObject({ match: false, variantKey: '' });

      // The bulk import runs on a thread whose script the executable carries: written to the
      // cache on first use, and again when something has removed it since.
      const importing = (ns: string) => api.request('POST', '/api/v1/import', `namespace: ${ns}\nflags:\n- {key: imported, name: Imported}\n`, { 'content-type': 'application/yaml' });
      expectStatus(await importing('threaded'), 200);
      const threads = join(dirs.cache, 'pennon', 'threads');
      expect(filesUnder(threads).map((f) => f.split(sep).at(-1))).toEqual(['bulk-worker.cjs']);
      rmSync(threads, { recursive: true, force: true });
      expect(expectStatus(await importing('threaded-again'), 200).created.flags).toBe(1);
      expect(filesUnder(threads).map((f) => f.split(sep).at(-1))).toEqual(['bulk-worker.cjs']);
      expectStatus(await api.get('/api/v1/namespaces/threaded-again/flags/imported'), 200);
    } finally {
      child.kill('SIGTERM');
    }
    expect((await child).exitCode).toBe(0);
    // Another process finds the same database in the same default place.
    const exported = await run(['flag', 'export']);
    expect(exported.exitCode, exported.stderr).toBe(0);
    expect(exported.stdout).toMatch(/- key: standalone\n/);
  });

  it('starts several processes at once on a fresh cache: all succeed, one driver file, no leftovers', async () => {
    const versionCache = join(root, 'cache-version');
    const versions = await Promise.all([0, 1].map(() => run(['version'], { XDG_CACHE_HOME: versionCache })));
    for (const v of versions) {
      expect(v.exitCode, v.stderr).toBe(0);
      expect(v.stdout).toMatch(new RegExp(`^pennon ${VERSION.replace(/\./g, '\\.')} `));
    }
    // `version` does not open a database; these do, so each must find or write the driver.
    const cache = join(root, 'cache-concurrent');
    const migrations = await Promise.all(
      [0, 1, 2, 3].map((i) => run(['migrate'], { XDG_CACHE_HOME: cache, PENNON_DB_URL: `file:${join(root, `concurrent-${i}.db`)}` })),
    );
    for (const m of migrations) {
      expect(m.exitCode, m.stderr).toBe(0);
      expect(m.stderr).toMatch(/^applied \d+ migration\(s\)/);
    }
    expect(filesUnder(cache)).toEqual([join('pennon', 'native', ADDON_DIR, 'better_sqlite3.node')]);
    expect(readFileSync(join(cache, 'pennon', 'native', ADDON_DIR, 'better_sqlite3.node')).equals(ADDON)).toBe(true);
  });

  it('--help lists every command, and every command has --help', async () => {
    const help = await run(['--help']);
    expect(help.exitCode).toBe(0);
    for (const command of COMMANDS) expect(help.stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    const results = await Promise.all(SUBCOMMANDS.map((c) => run([...c.split(' '), '--help'])));
    results.forEach((r, i) => {
      expect(r.exitCode, SUBCOMMANDS[i]).toBe(0);
      expect(r.stdout).toMatch(new RegExp(`^Usage: pennon ${SUBCOMMANDS[i]}\\b`));
    });
    const byName = Object.fromEntries(SUBCOMMANDS.map((c, i) => [c, results[i].stdout]));
    for (const option of ['--drop', '--skip-existing', '--format', '--json', '--address', '--token']) expect(byName['flag import']).toContain(option);
    for (const option of ['--namespace', '--all-namespaces', '--sort-by-key', '--output', '--address', '--token']) expect(byName['flag export']).toContain(option);
    for (const sub of ['create', 'list', 'delete']) expect(byName.token).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));
    for (const sub of ['export', 'import']) expect(byName.flag).toMatch(new RegExp(`^  ${sub}\\b`, 'm'));
    expect(byName.config).toMatch(/^ {2}validate\b/m);
  });

  it('exits 2 on an unknown command or option, or a missing argument', async () => {
    const cases = [['bogus'], ['--bogus'], ['serve', '--bogus'], ['flag', 'bogus'], ['flag', 'export', '--bogus'], ['flag', 'import', '--format', 'xml'], ['evaluate'], ['token', 'create']];
    const results = await Promise.all(cases.map((args) => run(args)));
    results.forEach((r, i) => {
      expect(r.exitCode, cases[i].join(' ')).toBe(2);
      expect(r.stderr).toMatch(/^error: .*\n\(run with --help for usage\)$/);
    });
  });
});
