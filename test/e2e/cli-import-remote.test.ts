import { once } from 'node:events';
import { createServer, request as forward, type Server } from 'node:http';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, pennon, serve, tempDir } from '../support/cli';
import { ApiClient, expectStatus } from '../support/server';

/**
 * `pennon flag import --address` against `pennon serve` (both the built executable): the stream
 * goes to the bulk import route in one request, so an import killed at any point leaves all of
 * it or nothing; a server without the route (Flipt; here Pennon behind a proxy that answers
 * those paths as Flipt's gateway does) gets the object-by-object import, announced as not
 * atomic before its first write.
 */

/** 10,000 flags, each with two variants and a 50/50 rule, as scripts/bench/startup.ts imports. */
function bigDocument(flags: number): string {
  const lines = ['version: "1.4"', 'namespace: default', 'flags:'];
  for (let i = 0; i < flags; i++) {
    lines.push(`- key: flag_${i}`, `  name: Flag ${i}`, '  enabled: true', '  variants:', '  - key: control', '  - key: treatment', '    attachment: {color: blue}');
    lines.push('  rules:', '  - segment: everyone', '    distributions:', '    - {variant: control, rollout: 50}', '    - {variant: treatment, rollout: 50}');
  }
  lines.push('segments:', '- key: everyone', '  name: Everyone');
  return `${lines.join('\n')}\n`;
}

interface LogLine {
  msg: string;
  reqId?: string;
  level: number;
  req?: { method: string; url: string };
}

describe('pennon flag import --address (the built CLI against pennon serve)', () => {
  let dir: string;
  let server: ResultPromise;
  let address: string;
  let api: ApiClient;
  const logs: LogLine[] = [];
  const waiting = new Set<() => void>();

  /** The first log line (past or future) that `match` accepts; fails after `ms`. */
  function logged(match: (line: LogLine) => boolean, ms: number): Promise<LogLine> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const line = logs.find(match);
        if (!line) return;
        waiting.delete(check);
        clearTimeout(timer);
        resolve(line);
      };
      const timer = setTimeout(() => {
        waiting.delete(check);
        reject(new Error(`no such log line within ${ms} ms`));
      }, ms);
      waiting.add(check);
      check();
    });
  }

  beforeAll(async () => {
    dir = tempDir('pennon-remote-');
    const port = await freePort();
    // Debug logging: every request's start and end (or refusal, for a body that never arrived).
    server = (await serve({ PENNON_DB_URL: `file:${join(dir, 'pennon.db')}`, PENNON_LOG_LEVEL: 'debug', PENNON_LOG_ENCODING: 'json' }, port)).process;
    let rest = '';
    server.stdout!.on('data', (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop()!;
      for (const line of lines) if (line.startsWith('{')) logs.push(JSON.parse(line) as LogLine);
      for (const check of [...waiting]) check();
    });
    address = `http://127.0.0.1:${port}`;
    api = new ApiClient(address);
  });
  afterAll(async () => {
    server.kill('SIGTERM');
    await server;
    rmSync(dir, { recursive: true, force: true });
  });

  const flagCount = async (ns: string) => expectStatus(await api.get(`/api/v1/namespaces/${ns}/flags?limit=1`), 200).totalCount as number;
  const namespaces = async () => expectStatus(await api.get('/api/v1/namespaces'), 200).namespaces.map((n: { key: string }) => n.key);
  const requestsSince = (from: number) => logs.slice(from).filter((l) => l.msg === 'incoming request' && !l.req!.url.startsWith('/health')).map((l) => `${l.req!.method} ${l.req!.url}`);

  it('sends the whole stream to the bulk import route: one request, one transaction', async () => {
    const file = join(dir, 'two.yml');
    writeFileSync(file, 'namespace: {key: shop, name: Shop}\nflags:\n- {key: a, name: A, variants: [{key: v}]}\n---\nflags:\n- {key: b, name: B}\n');
    const from = logs.length;
    const result = await pennon(['flag', 'import', file, '--address', address]);
    expect([result.exitCode, result.stderr]).toEqual([0, 'imported 1 namespace, 2 flags, 1 variant (one transaction)']);
    expect(requestsSince(from)).toEqual(['POST /api/v1/import', 'POST /api/v1/import?format=yaml']);
    expect([await flagCount('shop'), await flagCount('default')]).toEqual([1, 1]);
  });

  it('leaves all or nothing when killed during a --drop import of 10,000 flags; the same command then succeeds', async () => {
    expectStatus(await api.request('POST', '/api/v1/import?drop=true', 'namespace: old\nflags:\n- {key: kept, name: Kept}\n---\nflags:\n- {key: before, name: Before}\n', { 'content-type': 'application/yaml' }), 200);
    const file = join(dir, 'big.yml');
    writeFileSync(file, bigDocument(10_000));
    const args = ['flag', 'import', '--drop', file, '--address', address];

    const child = pennon(args);
    const started = await logged((l) => l.msg === 'incoming request' && l.req!.url === '/api/v1/import?format=yaml&drop=true', 60_000);
    child.kill('SIGKILL');
    expect((await child).signal).toBe('SIGKILL');
    // The server is done with the request once it committed the import (its answer then goes to
    // a closed socket: no "request completed"), answered it, or refused a body cut short.
    const done = ['import committed', 'request completed', 'request refused'];
    await logged((l) => l.reqId === started.reqId && (done.includes(l.msg) || l.level >= 50), 120_000);
    const state = { namespaces: await namespaces(), flags: await flagCount('default') };
    expect([
      { namespaces: ['default', 'old'], flags: 1 },
      { namespaces: ['default'], flags: 10_000 },
    ]).toContainEqual(state);

    const inHttp = performance.now();
    const again = await pennon(args);
    const httpMs = performance.now() - inHttp;
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.stderr).toMatch(/^imported 10000 flags, 20000 variants, 1 segment, 10000 rules, 20000 distributions; dropped default(, old)? \(one transaction\)$/);
    expect({ namespaces: await namespaces(), flags: await flagCount('default') }).toEqual({ namespaces: ['default'], flags: 10_000 });

    // The same import in-process, for the record: the ratio is a figure for the notes (scripts/bench
    // measures it), not a test — on a loaded machine it says more about the load than the route.
    // "(one transaction)" above is what proves the bulk route answered.
    const local = { PENNON_DB_URL: `file:${join(dir, 'local.db')}` };
    const inProcess = performance.now();
    const direct = await pennon(['flag', 'import', file], { env: local });
    const localMs = performance.now() - inProcess;
    expect(direct.exitCode, direct.stderr).toBe(0);
    console.log(`10,000 flags: ${httpMs.toFixed(0)} ms with --address (bulk route), ${localMs.toFixed(0)} ms in-process (${(httpMs / localMs).toFixed(2)}×)`);
  }, 240_000);

  describe('a server without the bulk import route', () => {
    let proxy: Server;
    let flipt: string;
    const seen: string[] = [];
    let stderr = '';
    let warnedBeforeFirstWrite: boolean | undefined;

    beforeAll(async () => {
      // Pennon behind a proxy that answers the import paths as Flipt's gateway answers a path it
      // has no route for. The first write it forwards waits (boundedly) for the CLI's warning.
      proxy = createServer((req, res) => {
        seen.push(`${req.method} ${req.url}`);
        if (/\/import(\?|$)/.test(req.url ?? '')) {
          res.writeHead(404, { 'content-type': 'application/json' }).end('{"code":5,"message":"Not Found","details":[]}');
          return;
        }
        const pass = () => req.pipe(forward(`${address}${req.url}`, { method: req.method, headers: req.headers }, (up) => up.pipe(res.writeHead(up.statusCode!, up.headers))));
        if (req.method === 'GET' || warnedBeforeFirstWrite !== undefined) return pass();
        const deadline = Date.now() + 5000;
        const wait = () => {
          if (stderr.includes('NOT atomic') || Date.now() > deadline) {
            warnedBeforeFirstWrite = stderr.includes('NOT atomic');
            pass();
          } else setImmediate(wait);
        };
        wait();
      });
      proxy.listen(0, '127.0.0.1');
      await once(proxy, 'listening');
      flipt = `http://127.0.0.1:${(proxy.address() as { port: number }).port}`;
    });
    afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())));

    it('says, before its first write, that the object-by-object import is not atomic', async () => {
      const file = join(dir, 'fallback.yml');
      writeFileSync(file, 'namespace: legacy\nflags:\n- {key: x, name: X, variants: [{key: v}]}\n');
      const child = pennon(['flag', 'import', file, '--address', flipt]);
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
      const result = await child;
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr.split('\n')).toEqual([
        `warning: ${flipt} has no bulk import route (a Flipt server, or an older Pennon): importing one object per request, which is NOT atomic — a failure or an interruption leaves what was created so far`,
        'imported 1 namespace, 1 flag, 1 variant',
      ]);
      expect(warnedBeforeFirstWrite).toBe(true);
      expect(seen[0]).toBe('POST /api/v1/namespaces/legacy/import');
      expect(seen.filter((r) => r.startsWith('POST /api/v1/namespaces'))).toEqual([
        'POST /api/v1/namespaces/legacy/import',
        'POST /api/v1/namespaces',
        'POST /api/v1/namespaces/legacy/flags',
        'POST /api/v1/namespaces/legacy/flags/x/variants',
      ]);
      expect(await flagCount('legacy')).toBe(1);
    });
  });
});
