import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, pennon, serve } from '../support/cli';
import { ApiClient, expectStatus } from '../support/server';

describe('pennon evaluate (the built CLI)', () => {
  let dir: string;
  let env: Record<string, string>;
  let server: ResultPromise;
  let address: string;
  let api: ApiClient;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pennon-eval-'));
    env = { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}` };
    const port = await freePort();
    server = (await serve(env, port)).process;
    address = `http://127.0.0.1:${port}`;
    api = new ApiClient(address);
    const p = '/api/v1/namespaces/default';
    expectStatus(await api.post(`${p}/flags`, { key: 'checkout', name: 'Checkout', enabled: true }), 200);
    const blue = expectStatus(await api.post(`${p}/flags/checkout/variants`, { key: 'blue' }), 200);
    const green = expectStatus(await api.post(`${p}/flags/checkout/variants`, { key: 'green', attachment: '{"x":1}' }), 200);
    expectStatus(await api.post(`${p}/segments`, { key: 'pro', name: 'Pro' }), 200);
    expectStatus(await api.post(`${p}/segments/pro/constraints`, { type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: 'pro' }), 200);
    expectStatus(await api.post(`${p}/segments/pro/constraints`, { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: '18' }), 200);
    expectStatus(await api.post(`${p}/segments`, { key: 'everyone', name: 'Everyone' }), 200);
    const r1 = expectStatus(await api.post(`${p}/flags/checkout/rules`, { segmentKey: 'pro', rank: 1 }), 200);
    expectStatus(await api.post(`${p}/flags/checkout/rules/${r1.id}/distributions`, { variantId: green.id, rollout: 100 }), 200);
    const r2 = expectStatus(await api.post(`${p}/flags/checkout/rules`, { segmentKey: 'everyone', rank: 2 }), 200);
    expectStatus(await api.post(`${p}/flags/checkout/rules/${r2.id}/distributions`, { variantId: blue.id, rollout: 50 }), 200);
    expectStatus(await api.post(`${p}/flags/checkout/rules/${r2.id}/distributions`, { variantId: green.id, rollout: 50 }), 200);
    expectStatus(await api.post(`${p}/flags`, { key: 'dark-mode', name: 'Dark', type: 'BOOLEAN_FLAG_TYPE', enabled: false }), 200);
    expectStatus(await api.post(`${p}/flags/dark-mode/rollouts`, { rank: 1, threshold: { percentage: 50, value: true } }), 200);
  });
  afterAll(async () => {
    server.kill('SIGTERM');
    await server;
    rmSync(dir, { recursive: true, force: true });
  });

  it('explains a match through a rule and its constraints, in-process against the database', async () => {
    const result = await pennon(['evaluate', 'checkout', '-e', 'user-1', '-c', 'plan=pro', '-c', 'age=42'], { env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('✓ rule 1: segment pro');
    expect(result.stdout).toContain('✓ age gte "18" — got "42"');
    expect(result.stdout).toContain('result: variant=green match=true reason=MATCH_EVALUATION_REASON segments=pro');
  });

  it('shows the failed constraint and the bucket when a later rule splits', async () => {
    const result = await pennon(['evaluate', 'checkout', '--entity-id', 'user-1', '--context', 'plan=pro', '--context', 'age=12'], { env });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('✗ age gte "18" — got "12"');
    expect(result.stdout).toMatch(/bucket \d+ of 0–999 .*ranges: 0–499 blue, 500–999 green/);
    const server = expectStatus(await api.post('/evaluate/v1/variant', { flagKey: 'checkout', entityId: 'user-1', context: { plan: 'pro', age: '12' } }), 200);
    expect(result.stdout).toContain(`result: variant=${server.variantKey} match=true`);
    // The one-line why names the rule that answered and the one before it that did not match.
    expect(result.stdout).toContain(`why: rule 2 matched (rule 1 did not): bucket `);
    expect(result.stdout).toMatch(new RegExp(`why: .*falls in ${server.variantKey}'s range$`));
  });

  it('evaluates over HTTP with --address, and --json prints the /evaluate/v1 response', async () => {
    const human = await pennon(['evaluate', 'checkout', '-e', 'user-7', '--address', address]);
    expect(human.exitCode).toBe(0);
    expect(human.stdout).toContain('✗ rule 1: segment pro');
    const json = await pennon(['evaluate', 'checkout', '-e', 'user-7', '--address', address, '--json']);
    expect(json.exitCode).toBe(0);
    const body = JSON.parse(json.stdout);
    const direct = expectStatus(await api.post('/evaluate/v1/variant', { flagKey: 'checkout', entityId: 'user-7' }), 200);
    expect(body).toMatchObject({ flagKey: 'checkout', match: true, variantKey: direct.variantKey, reason: 'MATCH_EVALUATION_REASON', segmentKeys: ['everyone'] });
    expect(typeof body.requestId).toBe('string');
  });

  it('explains a boolean threshold rollout, in-process with --json too', async () => {
    const human = await pennon(['evaluate', 'dark-mode', '-e', 'fixed'], { env });
    expect(human.stdout).toMatch(/rollout 1: threshold 50% — entity's value \d+/);
    const json = JSON.parse((await pennon(['evaluate', 'dark-mode', '-e', 'fixed', '--json'], { env })).stdout);
    const direct = expectStatus(await api.post('/evaluate/v1/boolean', { flagKey: 'dark-mode', entityId: 'fixed' }), 200);
    expect(json).toMatchObject({ flagKey: 'dark-mode', enabled: direct.enabled, reason: direct.reason });
  });

  it('fails with one line for a missing flag, a bad context and an unreachable server', async () => {
    const missing = await pennon(['evaluate', 'nope'], { env });
    expect(missing.exitCode).toBe(1);
    expect(missing.stderr.trim()).toBe(`pennon: flag "default/nope" not found in sqlite ${join(dir, 'pennon.db')}`);
    const badContext = await pennon(['evaluate', 'checkout', '-c', 'novalue'], { env });
    expect(badContext.exitCode).toBe(2);
    expect(badContext.stderr).toMatch(/"novalue" is not key=value/);
    const unreachable = await pennon(['evaluate', 'checkout', '--address', `http://127.0.0.1:${await freePort()}`]);
    expect(unreachable.exitCode).toBe(1);
    expect(unreachable.stderr).toMatch(/^pennon: cannot reach http:\/\/127\.0\.0\.1:\d+: ECONNREFUSED/);
  });
});
