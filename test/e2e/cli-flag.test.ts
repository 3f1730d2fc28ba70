import { readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { freePort, pennon, serve, tempDir } from '../support/cli';
import { ApiClient, expectStatus } from '../support/server';
import { DATASET, IMPORT_DOCUMENTS, expectDocumentsInApi, parseFixture, resetViaApi, undefinedSegments } from '../support/documents-in-api';
import { eventually } from '../support/wait';

/**
 * `pennon flag import` / `export`, run as a user runs them, against one running server: YAML
 * documents go over HTTP (--address), JSON ones in-process into the server's SQLite file while
 * it runs. What was imported is read back through the HTTP API.
 */

const REJECTED: Record<string, string> = {
  'bad-version': 'unsupported version: 9.1',
  'v1.0-with-type': 'flag.type is supported in version >=1.1, found 1.0',
  'v1.0-with-rollouts': 'flag.rollouts is supported in version >=1.1, found 1.0',
};
const VERSION = (JSON.parse(readFileSync(join(__dirname, '../../package.json'), 'utf8')) as { version: string }).version;
const fixtures = readdirSync(IMPORT_DOCUMENTS).sort();
const rejected = fixtures.filter((f) => f.replace(/\.(yml|json)$/, '') in REJECTED);
const accepted = fixtures.filter((f) => !rejected.includes(f));

describe('pennon flag import / export (the built CLI)', () => {
  let dir: string;
  let env: Record<string, string>;
  let server: ResultPromise;
  let address: string;
  let api: ApiClient;

  beforeAll(async () => {
    dir = tempDir('pennon-flag-');
    env = { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}` };
    const port = await freePort();
    server = (await serve(env, port)).process;
    address = `http://127.0.0.1:${port}`;
    api = new ApiClient(address);
  });
  afterAll(async () => {
    server.kill('SIGTERM');
    await server;
    rmSync(dir, { recursive: true, force: true });
  });
  beforeEach(() => resetViaApi(api));

  /** Everything in the database, as `flag export --all-namespaces` (in-process) prints it. */
  const exportAll = async (): Promise<string> => {
    const result = await pennon(['flag', 'export', '--all-namespaces'], { env });
    expect(result.exitCode, result.stderr).toBe(0);
    return result.stdout;
  };
  /** YAML over HTTP, JSON in-process (the server notices the write within ~1 s). */
  const importFixture = (file: string, extra: string[] = []) =>
    file.endsWith('.json') ? pennon(['flag', 'import', join(IMPORT_DOCUMENTS, file), ...extra], { env }) : pennon(['flag', 'import', join(IMPORT_DOCUMENTS, file), '--address', address, ...extra]);
  const seedFlag = async () => expectStatus(await api.post('/api/v1/namespaces/default/flags', { key: 'before', name: 'Before', enabled: true }), 200);

  it.each(rejected)('refuses %s with Flipt\'s message and writes nothing', async (file) => {
    await seedFlag();
    const before = await exportAll();
    const result = await importFixture(file);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(new RegExp(`^pennon: ${REJECTED[file.replace(/\.(yml|json)$/, '')].replace(/[.>]/g, '\\$&')}\\b[^\\n]*$`));
    expect(await exportAll()).toBe(before);
    expect(before).toContain('key: before');
  });

  it.each(accepted)('imports %s; the API returns every object of the document', async (file) => {
    const docs = parseFixture(join(IMPORT_DOCUMENTS, file));
    // These documents' rollouts name a segment `staff` that no document defines (as Flipt's own
    // import tests do, against a mocked store); a real database refuses them, in Flipt too. So
    // it is created through the API first, in each namespace concerned.
    const missing = undefinedSegments(docs);
    for (const [ns, keys] of missing) {
      expect([...keys]).toEqual(['staff']);
      if (ns !== 'default') expectStatus(await api.post('/api/v1/namespaces', { key: ns, name: ns }), 200);
      expectStatus(await api.post(`/api/v1/namespaces/${ns}/segments`, { key: 'staff', name: 'Staff' }), 200);
    }
    const result = await importFixture(file, ['--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^imported (\d+ namespaces?, )?\d+ flags?\b[^\n]*$/);
    const created = JSON.parse(result.stdout).created;
    expect(created.flags).toBe(docs.reduce((n, d) => n + (d.flags?.length ?? 0), 0));
    expect(created.segments).toBe(docs.reduce((n, d) => n + (d.segments?.length ?? 0), 0));
    await eventually(() => expectDocumentsInApi(api, docs, missing));
  });

  it('imports the data set (both namespaces); evaluations answer as in Flipt', async () => {
    for (const file of ['default.yaml', 'production.yaml']) {
      const result = await pennon(['flag', 'import', join(DATASET, file)], { env });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/^imported (1 namespace, )?27 flags, 44 variants, 23 segments, 22 constraints, 403 rules, 803 distributions, 7 rollouts \(one transaction\)$/);
    }
    const variant = (namespaceKey: string, flagKey: string, entityId: string, context: Record<string, string>) =>
      eventually(async () => expectStatus(await api.post('/evaluate/v1/variant', { namespaceKey, flagKey, entityId, context }), 200));
    // Bucket crc32(flag key + entity id) % 1000: 520 for banner-01 and 952 for bundle-offer, in
    // the second half of their 50/50 splits.
    for (const ns of ['default', 'production']) {
      expect(await variant(ns, 'banner-01', 'dave', { cohort: '05' })).toMatchObject({
        match: true,
        variantKey: 'right',
        segmentKeys: ['cohort-05'],
        reason: 'MATCH_EVALUATION_REASON',
      });
    }
    expect(await variant('default', 'bundle-offer', 'dave', { cohort: '01', tier: 'gold' })).toMatchObject({
      match: true,
      variantKey: 'right',
      segmentKeys: ['cohort-01', 'loyal'],
    });
    // The 50% threshold: crc32(entity id + flag key) % 100 is 94 for carol, 10 for dave.
    const boolean = async (entityId: string, context: Record<string, string> = {}) =>
      expectStatus(await api.post('/evaluate/v1/boolean', { flagKey: 'express-delivery', entityId, context }), 200);
    expect(await boolean('carol')).toMatchObject({ enabled: false, reason: 'DEFAULT_EVALUATION_REASON' });
    expect(await boolean('dave')).toMatchObject({ enabled: true, reason: 'MATCH_EVALUATION_REASON', segmentKeys: [] });
    expect(await boolean('carol', { cohort: '01' })).toMatchObject({ enabled: true, segmentKeys: ['cohort-01'] });
    expect(expectStatus(await api.get('/api/v1/namespaces/production'), 200).name).toBe('Production');
  });

  it('--skip-existing skips what exists; a plain re-import fails naming the flag and writes nothing', async () => {
    const file = join(IMPORT_DOCUMENTS, 'v1.0.yml');
    const first = await pennon(['flag', 'import', file, '--json'], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toEqual({
      created: { namespaces: 0, flags: 1, variants: 1, segments: 1, constraints: 1, rules: 1, distributions: 1, rollouts: 0 },
      skipped: { flags: [], segments: [] },
      dropped: [],
    });
    const before = await exportAll();
    for (const remote of [[], ['--address', address]]) {
      const again = await pennon(['flag', 'import', file, ...remote], { env });
      expect(again.exitCode).toBe(1);
      expect(again.stderr).toMatch(/^pennon: flag "default\/checkout" is not unique \(document 1, namespace "default", flag "checkout"[^\n]*\nhint: add --skip-existing to keep what already exists, or --drop to replace everything$/);
      const skipping = await pennon(['flag', 'import', file, '--skip-existing', '--json', ...remote], { env });
      expect(skipping.exitCode, skipping.stderr).toBe(0);
      expect(JSON.parse(skipping.stdout)).toMatchObject({ created: { flags: 0, segments: 0 }, skipped: { flags: ['default/checkout'], segments: ['default/beta-testers'] } });
      expect(skipping.stderr).toMatch(/^imported nothing; skipped 2 existing/);
    }
    expect(await exportAll()).toBe(before);
  });

  it('--drop deletes every namespace first, in-process and over HTTP', async () => {
    for (const remote of [[], ['--address', address]]) {
      expectStatus(await api.post('/api/v1/namespaces', { key: 'other', name: 'Other' }), 200);
      expectStatus(await api.post('/api/v1/namespaces/other/flags', { key: 'gone', name: 'Gone' }), 200);
      expectStatus(await api.post('/api/v1/namespaces/default/flags', { key: 'gone-too', name: 'Gone too' }), 200);
      const result = await pennon(['flag', 'import', '--drop', '--json', join(IMPORT_DOCUMENTS, 'v1.0.yml'), ...remote], { env });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(JSON.parse(result.stdout).dropped.sort()).toEqual(['default', 'other']);
      expect(result.stderr).toMatch(/; dropped default, other/);
      await eventually(async () => expect((await api.get('/api/v1/namespaces/other')).status).toBe(404));
      const flags = expectStatus(await api.get('/api/v1/namespaces/default/flags'), 200).flags.map((f: { key: string }) => f.key);
      expect(flags).toEqual(['checkout']);
      expect(expectStatus(await api.get('/api/v1/namespaces/default'), 200).name).toBe('Default');
    }
  });

  it('reads stdin: `-` with --format json, and YAML by default', async () => {
    const json = await pennon(['flag', 'import', '-', '--format', 'json'], { env, input: readFileSync(join(IMPORT_DOCUMENTS, 'v1.0.json'), 'utf8') });
    expect(json.exitCode, json.stderr).toBe(0);
    const yaml = await pennon(['flag', 'import'], { env, input: 'namespace: piped\nflags:\n- key: from-stdin\n  name: From stdin\n  enabled: true\n' });
    expect(yaml.exitCode, yaml.stderr).toBe(0);
    await eventually(async () => {
      expect(expectStatus(await api.get('/api/v1/namespaces/default/flags/checkout'), 200).variants[0].key).toBe('one-page');
      expect(expectStatus(await api.get('/api/v1/namespaces/piped/flags/from-stdin'), 200).enabled).toBe(true);
    });
    const garbage = await pennon(['flag', 'import', '-', '--format', 'json'], { env, input: '{"flags": [' });
    expect(garbage.exitCode).toBe(1);
    expect(garbage.stderr).toBe('pennon: unmarshalling document: json: Unexpected end of JSON input (document 1, line 1)\n  1 | {"flags": [\n    |            ^');
  });

  it('exports to files, every namespace, sorted, and chosen namespaces', async () => {
    const doc =
      'namespace: default\nflags:\n- key: zeta\n  name: Zeta\n- key: alpha\n  name: Alpha\n  variants:\n  - key: z\n  - key: a\n' +
      '---\nnamespace: {key: beta, name: Beta}\nsegments:\n- key: s2\n  name: S2\n- key: s1\n  name: S1\n';
    expect((await pennon(['flag', 'import', '--address', address], { input: doc })).exitCode).toBe(0);
    const out = (name: string) => join(dir, name);
    const body = (file: string) => {
      const text = readFileSync(file, 'utf8');
      expect(text.startsWith(`# exported by Pennon (${VERSION}) on `)).toBe(true);
      expect(text).toMatch(/^[^\n]* on \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\n/);
      return text.slice(text.indexOf('\n') + 1);
    };

    // Only reads from here on: the exports run side by side.
    const exportWith = (...args: string[]) => pennon(['flag', 'export', ...args], { env });
    const [toYml, plain, remote, toJson, all, allJson, sortedAll, comma, repeated, both] = await Promise.all([
      exportWith('-o', out('one.yml')),
      exportWith(),
      pennon(['flag', 'export', '--address', address]),
      exportWith('-o', out('one.json')),
      exportWith('--all-namespaces'),
      exportWith('--all-namespaces', '-o', out('all.json')),
      exportWith('--all-namespaces', '--sort-by-key'),
      exportWith('-n', 'beta,default'),
      exportWith('-n', 'beta', '--namespace', 'default'),
      exportWith('-n', 'beta', '--all-namespaces'),
    ]);
    expect([toYml.exitCode, toYml.stdout, toYml.stderr]).toEqual([0, '', `exported to ${out('one.yml')}`]);
    const stdout = plain.stdout;
    expect(parse(body(out('one.yml')))).toEqual(parse(stdout));
    expect(parse(stdout)).toMatchObject({ version: '1.4', namespace: { key: 'default' }, flags: [{ key: 'zeta' }, { key: 'alpha', variants: [{ key: 'z' }, { key: 'a' }] }] });
    expect(remote.stdout).toBe(stdout);

    expect(toJson.exitCode).toBe(0);
    expect(body(out('one.json')).trim().split('\n').map((l) => JSON.parse(l))).toEqual([parse(stdout)]);

    const stream = parseAllDocuments(all.stdout).map((d) => d.toJS());
    expect(stream.map((d) => [d.version, d.namespace.key])).toEqual([['1.4', 'default'], [undefined, 'beta']]);
    expect(all.stdout).toMatch(/\n---\n/);
    expect(allJson.exitCode).toBe(0);
    const lines = body(out('all.json')).trim().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual(stream);

    const sorted = parseAllDocuments(sortedAll.stdout).map((d) => d.toJS());
    expect(sorted.map((d) => [d.version, d.namespace.key])).toEqual([['1.4', 'beta'], [undefined, 'default']]);
    expect(sorted[1].flags.map((f: { key: string }) => f.key)).toEqual(['alpha', 'zeta']);
    expect(sorted[1].flags[0].variants.map((v: { key: string }) => v.key)).toEqual(['a', 'z']);
    expect(sorted[0].segments.map((s: { key: string }) => s.key)).toEqual(['s1', 's2']);
    expect(stream[1].segments.map((s: { key: string }) => s.key)).toEqual(['s2', 's1']);

    expect(parseAllDocuments(comma.stdout).map((d) => d.toJS().namespace.key)).toEqual(['beta', 'default']);
    expect(repeated.stdout).toBe(comma.stdout);
    expect(both.exitCode).toBe(2);
  });

  it('fails with `cannot reach` when --address answers nothing', async () => {
    const nobody = `http://127.0.0.1:${await freePort()}`;
    for (const args of [['flag', 'export', '--address', nobody], ['flag', 'import', join(IMPORT_DOCUMENTS, 'v1.0.yml'), '--address', nobody]]) {
      const result = await pennon(args);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(/^pennon: [^\n]*cannot reach [^\n]*\nhint: is a Pennon \(or Flipt\) server running at http:\/\/127\.0\.0\.1:\d+\?$/);
    }
  });

  it('refuses an invalid stream, naming the document, flag and field; nothing is written', async () => {
    await seedFlag();
    const before = await exportAll();
    const file = join(dir, 'invalid.yml');
    writeFileSync(
      file,
      'namespace: fine\nflags:\n- key: ok\n  name: OK\n---\nflags:\n- key: bad\n  name: Bad\n  variants:\n  - key: a\n' +
        '  rules:\n  - segment: s\n    distributions:\n    - variant: nope\n      rollout: 100\nsegments:\n- key: s\n  name: S\n',
    );
    for (const remote of [[], ['--address', address]]) {
      const result = await pennon(['flag', 'import', file, ...remote], { env });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(/^pennon: [^\n]*nope[^\n]*\(document 2, namespace "default", flag "bad", field rules\[0\]\.distributions\[0\]\.variant[^\n]*$/);
      expect(await exportAll()).toBe(before);
    }
  });

  it('round-trips every kind of object: API → export → fresh database → export', async () => {
    const p = '/api/v1/namespaces/rt';
    expectStatus(await api.post('/api/v1/namespaces', { key: 'rt', name: 'Round trip', description: 'every kind of object' }), 200);
    expectStatus(await api.post(`${p}/segments`, { key: 's-all', name: 'All', description: 'all must match' }), 200);
    expectStatus(await api.post(`${p}/segments`, { key: 's-any', name: 'Any', matchType: 'ANY_MATCH_TYPE' }), 200);
    const constraints: [string, object][] = [
      ['s-all', { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro', description: 'paying' }],
      ['s-all', { type: 'STRING_COMPARISON_TYPE', property: 'country', operator: 'isoneof', value: '["fr","de"]' }],
      ['s-all', { type: 'STRING_COMPARISON_TYPE', property: 'email', operator: 'notempty' }],
      ['s-all', { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: '18' }],
      ['s-all', { type: 'NUMBER_COMPARISON_TYPE', property: 'tier', operator: 'isnotoneof', value: '[1,2,3]' }],
      ['s-all', { type: 'BOOLEAN_COMPARISON_TYPE', property: 'beta', operator: 'true' }],
      ['s-all', { type: 'DATETIME_COMPARISON_TYPE', property: 'at', operator: 'lt', value: '2024-05-01T10:00:00+02:00' }],
      ['s-all', { type: 'DATETIME_COMPARISON_TYPE', property: 'day', operator: 'eq', value: '2024-01-01' }],
      ['s-any', { type: 'ENTITY_ID_COMPARISON_TYPE', property: 'entityId', operator: 'isoneof', value: '["u1","u2"]' }],
      ['s-any', { type: 'STRING_COMPARISON_TYPE', property: 'path', operator: 'prefix', value: '/beta' }],
    ];
    for (const [segment, c] of constraints) expectStatus(await api.post(`${p}/segments/${segment}/constraints`, c), 200);
    expectStatus(await api.post(`${p}/flags`, { key: 'checkout', name: 'Checkout', description: 'new flow', enabled: true, metadata: { team: 'web', tier: 2, nested: { a: [1, 2] } } }), 200);
    const blue = expectStatus(await api.post(`${p}/flags/checkout/variants`, { key: 'blue', name: 'Blue', attachment: '{"color":"blue","n":1.5}' }), 200);
    const green = expectStatus(await api.post(`${p}/flags/checkout/variants`, { key: 'green', attachment: '{"list":[1,0,2]}' }), 200);
    const plain = expectStatus(await api.post(`${p}/flags/checkout/variants`, { key: 'plain', description: 'no attachment' }), 200);
    expectStatus(await api.put(`${p}/flags/checkout`, { name: 'Checkout', description: 'new flow', enabled: true, defaultVariantId: green.id }), 200);
    const r1 = expectStatus(await api.post(`${p}/flags/checkout/rules`, { rank: 1, segmentKeys: ['s-all', 's-any'], segmentOperator: 'AND_SEGMENT_OPERATOR' }), 200);
    expectStatus(await api.post(`${p}/flags/checkout/rules/${r1.id}/distributions`, { variantId: blue.id, rollout: 30 }), 200);
    expectStatus(await api.post(`${p}/flags/checkout/rules/${r1.id}/distributions`, { variantId: green.id, rollout: 70 }), 200);
    const r2 = expectStatus(await api.post(`${p}/flags/checkout/rules`, { rank: 2, segmentKey: 's-any' }), 200);
    expectStatus(await api.post(`${p}/flags/checkout/rules/${r2.id}/distributions`, { variantId: plain.id, rollout: 100 }), 200);
    expectStatus(await api.post(`${p}/flags`, { key: 'dark', name: 'Dark', type: 'BOOLEAN_FLAG_TYPE', enabled: true, metadata: { owner: 'ux' } }), 200);
    expectStatus(await api.post(`${p}/flags/dark/rollouts`, { rank: 1, segment: { segmentKeys: ['s-all', 's-any'], segmentOperator: 'AND_SEGMENT_OPERATOR', value: true } }), 200);
    expectStatus(await api.post(`${p}/flags/dark/rollouts`, { rank: 2, description: 'admins off', segment: { segmentKey: 's-any', value: false } }), 200);
    expectStatus(await api.post(`${p}/flags/dark/rollouts`, { rank: 3, threshold: { percentage: 25.5, value: true } }), 200);
    expectStatus(await api.post(`${p}/flags`, { key: 'empty', name: 'Empty' }), 200);

    const fresh = tempDir('pennon-flag-fresh-');
    try {
      const freshEnv = { PENNON_DB_URL: `file:${join(fresh, 'pennon.db')}` };
      for (const ext of ['yml', 'json']) {
        const [first, second] = [join(fresh, `first.${ext}`), join(fresh, `second.${ext}`)];
        const exported = await pennon(['flag', 'export', '-n', 'rt', '--address', address, '-o', first]);
        expect(exported.exitCode, exported.stderr).toBe(0);
        const imported = await pennon(['flag', 'import', '--drop', first], { env: freshEnv });
        expect(imported.exitCode, imported.stderr).toBe(0);
        expect(imported.stderr).toMatch(/^imported 1 namespace, 3 flags, 3 variants, 2 segments, 10 constraints, 2 rules, 3 distributions, 3 rollouts/);
        expect((await pennon(['flag', 'export', '-n', 'rt', '-o', second], { env: freshEnv })).exitCode).toBe(0);
        const [a, b] = [first, second].map((f) => readFileSync(f, 'utf8').split('\n'));
        expect(a[0]).toMatch(/^# exported by Pennon/);
        expect(b.slice(1)).toEqual(a.slice(1));
      }
      // The export holds what the API built (read back through the API, field by field).
      const docs = parseFixture(join(fresh, 'first.yml'));
      expect(readFileSync(join(fresh, 'first.yml'), 'utf8')).toMatch(/default: true[\s\S]*AND_SEGMENT_OPERATOR[\s\S]*threshold:/);
      await expectDocumentsInApi(api, docs);
      expect(docs[0].segments?.flatMap((s) => s.constraints.map((c: { type: string; operator: string }) => `${c.type}:${c.operator}`))).toEqual(
        constraints.map(([, c]) => `${(c as { type: string }).type}:${(c as { operator: string }).operator}`),
      );
      expect(docs[0].flags?.[0].metadata).toEqual({ team: 'web', tier: 2, nested: { a: [1, 2] } });
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
