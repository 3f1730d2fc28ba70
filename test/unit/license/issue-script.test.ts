import { spawnSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadLicense } from '../../../internal/license';

/** scripts/license/issue.mjs: what it prints verifies with internal/license. */
const SCRIPT = join(__dirname, '../../../scripts/license/issue.mjs');
const run = (...args: string[]) => spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8' });
const tmp = mkdtempSync(join(tmpdir(), 'pennon-issue-'));
const NOW = new Date('2026-11-22T12:00:00Z');

describe('scripts/license/issue.mjs', () => {
  it('prints a licence signed by the test issuer that loadLicense accepts', () => {
    const out = run('--customer', 'Acme Corp', '--features', 'webhook, sso', '--expires', '2027-06-30T00:00:00Z', '--id', 'lic-42', '--issued', '2026-06-30T00:00:00Z');
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\n$/);
    const r = loadLicense({ key: out.stdout }, NOW);
    expect(r).toMatchObject({ state: 'valid', license: { id: 'lic-42', customer: 'Acme Corp', features: ['webhook', 'sso'] } });
    expect(r.license!.issuedAt!.toISOString()).toBe('2026-06-30T00:00:00.000Z');
  });

  it('--out writes a file for license.file; defaults: features webhook, a random id, issued now', () => {
    const file = join(tmp, 'out.lic');
    const out = run('--customer', 'B', '--expires', '2027-01-01T00:00:00Z', '--out', file);
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout).toBe('');
    const r = loadLicense({ file }, NOW);
    expect(r).toMatchObject({ state: 'valid', license: { customer: 'B', features: ['webhook'] } });
    expect(r.license!.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(Math.abs(r.license!.issuedAt!.getTime() - Date.now())).toBeLessThan(60_000);
    expect(loadLicense({ file }, new Date('2027-01-01T00:00:00Z')).state).toBe('expired');
  });

  it('a licence signed with another --key does not verify in this build', () => {
    const key = join(tmp, 'other.key');
    writeFileSync(key, generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const out = run('--customer', 'C', '--expires', '2027-01-01T00:00:00Z', '--key', key);
    expect(out.status, out.stderr).toBe(0);
    expect(loadLicense({ key: out.stdout }, NOW)).toMatchObject({ state: 'invalid', problem: 'signature' });
  });

  it('refuses missing or bad arguments with exit status 2', () => {
    expect(run('--expires', '2027-01-01T00:00:00Z')).toMatchObject({ status: 2, stderr: expect.stringMatching(/--customer is required/) });
    expect(run('--customer', 'A')).toMatchObject({ status: 2, stderr: expect.stringMatching(/--expires is required/) });
    expect(run('--customer', 'A', '--expires', '2027-01-01')).toMatchObject({ status: 2, stderr: expect.stringMatching(/not an RFC 3339/) });
    expect(run('--customer', 'A', '--expires', '2027-01-01T00:00:00Z', '--bogus')).toMatchObject({ status: 2 });
    const rsa = join(tmp, 'rsa.key');
    writeFileSync(rsa, generateKeyPairSync('rsa', { modulusLength: 1024 }).privateKey.export({ type: 'pkcs8', format: 'pem' }));
    expect(run('--customer', 'A', '--expires', '2027-01-01T00:00:00Z', '--key', rsa)).toMatchObject({ status: 2, stderr: expect.stringMatching(/Ed25519/) });
  });
});
