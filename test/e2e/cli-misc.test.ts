import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, pennon, tempDir } from '../support/cli';

/** `pennon config validate`, `version`, and the failures of `migrate` and `serve` (the built CLI). */

const VERSION = (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version;
/** A stack frame as Node prints it. */
const STACK = /\n\s+at /;

describe('pennon config validate, version, migrate and serve failures (the built CLI)', () => {
  let dir: string;
  let good: string;
  let bad: string;
  beforeAll(() => {
    dir = tempDir('pennon-misc-');
    good = join(dir, 'good.yml');
    bad = join(dir, 'bad.yml');
    writeFileSync(good, `server:\n  http_port: 9091\n  host: 127.0.0.1\ndb:\n  url: file:${join(dir, 'from-config.db')}\nlog:\n  level: warn\n`);
    writeFileSync(bad, 'server:\n  http_port: eighty\n  bogus_key: 1\nlog:\n  level: info\n');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  describe('config validate', () => {
    it('accepts a good file (as argument or --config), saying so on stderr', async () => {
      for (const args of [['config', 'validate', good], ['--config', good, 'config', 'validate']]) {
        const result = await pennon(args);
        expect(result.exitCode, result.stderr).toBe(0);
        expect(result.stdout).toBe('');
        expect(result.stderr).toBe(`${good}: valid`);
      }
    });

    it('prints the effective configuration with --json, PENNON_* variables applied, secrets redacted', async () => {
      const result = await pennon(['config', 'validate', good, '--json'], {
        env: { PENNON_SERVER_HTTP_PORT: '9092', PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: 's3cret-bootstrap' },
      });
      expect(result.exitCode, result.stderr).toBe(0);
      const body = JSON.parse(result.stdout);
      expect(body).toMatchObject({ valid: true, warnings: [], config: { server: { host: '127.0.0.1', http_port: 9092 }, log: { level: 'error' } } });
      expect(result.stdout).not.toContain('s3cret-bootstrap');
    });

    it('prints every problem of a bad file, one per line, and exits 1', async () => {
      const result = await pennon(['config', 'validate', bad]);
      expect(result.exitCode).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr.split('\n').sort()).toEqual(['server.bogus_key: unknown key', 'server.http_port: expected number, received string']);
      const viaGlobal = await pennon(['--config', bad, 'config', 'validate']);
      expect([viaGlobal.exitCode, viaGlobal.stderr]).toEqual([1, result.stderr]);
    });

    it('prints the problems as JSON with --json, and exits 1', async () => {
      const result = await pennon(['config', 'validate', bad, '--json']);
      expect(result.exitCode).toBe(1);
      const body = JSON.parse(result.stdout);
      expect(body.valid).toBe(false);
      expect([...body.problems].sort()).toEqual(['server.bogus_key: unknown key', 'server.http_port: expected number, received string']);
    });

    it('checks the environment without a file: bad values fail naming the variable, unknown ones warn', async () => {
      const badEnv = await pennon(['config', 'validate'], { env: { PENNON_SERVER_HTTP_PORT: 'eighty' } });
      expect(badEnv.exitCode).toBe(1);
      expect(badEnv.stderr).toBe('server.http_port (from PENNON_SERVER_HTTP_PORT): expected number, received string');
      const unknown = await pennon(['config', 'validate'], { env: { PENNON_NO_SUCH_KEY: '1' } });
      expect(unknown.exitCode).toBe(0);
      expect(unknown.stderr).toMatch(/^warning: environment variable PENNON_NO_SUCH_KEY names no configuration key; ignored\n.*valid$/);
      const missing = await pennon(['config', 'validate', join(dir, 'nope.yml')]);
      expect(missing.exitCode).toBe(1);
      expect(missing.stderr).toMatch(/^cannot read .*nope\.yml: ENOENT$/);
    });
  });

  describe('version', () => {
    it('prints one line, and the build as JSON with --json', async () => {
      const [text, json] = await Promise.all([pennon(['version']), pennon(['version', '--json'])]);
      expect(json.exitCode).toBe(0);
      const info = JSON.parse(json.stdout);
      expect(Object.keys(info).sort()).toEqual(['arch', 'buildDate', 'commit', 'node', 'os', 'version']);
      expect(info).toMatchObject({ version: VERSION, node: process.versions.node, os: process.platform, arch: process.arch });
      // The commit built from: a real commit of this repository that HEAD contains.
      expect(info.commit).toMatch(/^[0-9a-f]{12}$/);
      const git = (...args: string[]) => execFileSync('git', args, { cwd: join(__dirname, '../..'), encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
      expect(() => git('merge-base', '--is-ancestor', info.commit, 'HEAD')).not.toThrow();
      expect(info.buildDate).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
      expect(Date.parse(info.buildDate)).toBeLessThanOrEqual(Date.now());
      expect(text.exitCode).toBe(0);
      expect(text.stdout).toBe(`pennon ${VERSION} (${info.commit}) built ${info.buildDate}, node ${process.versions.node} ${process.platform}/${process.arch}`);
      const short = await pennon(['-V']);
      expect([short.exitCode, short.stdout]).toEqual([0, VERSION]);
    });
  });

  describe('migrate', () => {
    it('migrates the database the --config file names', async () => {
      const result = await pennon(['--config', good, 'migrate']);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/^applied \d+ migration\(s\): 0001_initial/);
      expect(readFileSync(join(dir, 'from-config.db')).subarray(0, 15).toString()).toBe('SQLite format 3');
    });

    it('fails with one line on an unsupported scheme, an unreachable server or a directory; --verbose and debug add the stack', async () => {
      const urls = {
        'libsql://pennon:secret@127.0.0.1:1/pennon': /unsupported database URL scheme "libsql:"/,
        'mysql://pennon:secret@127.0.0.1:1/pennon': /ECONNREFUSED/,
        'postgres://pennon:secret@127.0.0.1:1/pennon': /ECONNREFUSED/,
        [`file:${dir}`]: /database/,
      };
      await Promise.all(
        Object.entries(urls).map(async ([url, message]) => {
          const env = { PENNON_DB_URL: url };
          const [plain, verboseFirst, verboseLast, debug] = await Promise.all([
            pennon(['migrate'], { env }),
            pennon(['--verbose', 'migrate'], { env }),
            pennon(['migrate', '--verbose'], { env }),
            pennon(['migrate'], { env: { ...env, PENNON_LOG_LEVEL: 'debug' } }),
          ]);
          expect(plain.exitCode).toBe(1);
          expect(plain.stderr).toMatch(/^pennon: [^\n]+$/);
          expect(plain.stderr).toMatch(message);
          expect(plain.stderr).not.toContain('secret');
          for (const loud of [verboseFirst, verboseLast, debug]) {
            expect(loud.exitCode).toBe(1);
            expect(loud.stderr).toMatch(message);
            expect(loud.stderr).toMatch(STACK);
          }
        }),
      );
    });
  });

  describe('serve', () => {
    it('refuses a bad --config file: exit 1, every problem named, no stack', async () => {
      const result = await pennon(['--config', bad, 'serve'], { env: { PENNON_DB_URL: `file:${join(dir, 'serve.db')}` } });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(/^pennon: invalid configuration \(.*bad\.yml\):/);
      expect(result.stderr).toContain('server.http_port: expected number, received string');
      expect(result.stderr).toContain('server.bogus_key: unknown key');
      expect(result.stderr).not.toMatch(STACK);
      const missing = await pennon(['--config', join(dir, 'nope.yml'), 'serve']);
      expect(missing.exitCode).toBe(1);
      expect(missing.stderr).toMatch(/cannot read .*nope\.yml: ENOENT/);
    });

    it('fails with one line when its port is taken; --verbose adds the stack', async () => {
      const { createServer } = await import('node:net');
      const blocker = createServer();
      const port = await freePort();
      await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
      try {
        const env = { PENNON_DB_URL: `file:${join(dir, 'busy.db')}`, PENNON_SERVER_HOST: '127.0.0.1', PENNON_SERVER_HTTP_PORT: String(port) };
        const plain = await pennon(['serve'], { env });
        expect(plain.exitCode).toBe(1);
        expect(plain.stderr).toMatch(/^pennon: [^\n]*EADDRINUSE[^\n]*$/);
        const verbose = await pennon(['serve', '--verbose'], { env });
        expect(verbose.exitCode).toBe(1);
        expect(verbose.stderr).toMatch(STACK);
      } finally {
        blocker.close();
      }
    });
  });
});
