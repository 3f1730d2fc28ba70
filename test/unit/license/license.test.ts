import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  encodeLicense,
  featureStatus,
  hasFeature,
  ISSUER_KEY,
  issuerKeyObject,
  loadLicense,
  TEST_ISSUER_KEY,
  USING_TEST_ISSUER,
  type LicensePayload,
} from '../../../internal/license';

/** The licence gate (internal/license): none, valid, expired, forged, malformed; key vs file. */
const FIXTURES = join(__dirname, '../../fixtures/license');
const testIssuer = createPrivateKey(readFileSync(join(FIXTURES, 'issuer-test.key')));
const NOW = new Date('2026-11-22T12:00:00Z');
const payload = (over: Partial<LicensePayload> = {}): LicensePayload => ({
  v: 1,
  id: 'lic-0001',
  customer: 'Acme Corp',
  features: ['webhook'],
  issued_at: '2026-01-01T00:00:00Z',
  expires_at: '2027-01-01T00:00:00Z',
  ...over,
});
const issue = (over: Partial<LicensePayload> = {}) => encodeLicense(payload(over), testIssuer);
/** Signs arbitrary payload text with the test issuer, to reach the checks behind the signature. */
const signRaw = (json: string) => {
  const body = Buffer.from(json).toString('base64url');
  return `${body}.${sign(null, Buffer.from(body), testIssuer).toString('base64url')}`;
};
const tmp = mkdtempSync(join(tmpdir(), 'pennon-license-'));

describe('the issuer key', () => {
  it('is the test issuer in builds without __PENNON_LICENSE_ISSUER__, and matches the committed key pair', () => {
    expect(ISSUER_KEY).toBe(TEST_ISSUER_KEY);
    expect(USING_TEST_ISSUER).toBe(true);
    const pub = createPublicKey(readFileSync(join(FIXTURES, 'issuer-test.pub')));
    expect(pub.export({ format: 'jwk' }).x).toBe(TEST_ISSUER_KEY);
    expect(createPublicKey(testIssuer).export({ format: 'jwk' }).x).toBe(TEST_ISSUER_KEY);
  });

  it('refuses a key that is not 32 bytes of base64url', () => {
    expect(() => issuerKeyObject('short')).toThrow(/32 bytes/);
    expect(() => issuerKeyObject(`${TEST_ISSUER_KEY.slice(0, 42)}+`)).toThrow(/32 bytes/);
  });
});

describe('loadLicense', () => {
  it('none: neither key nor file (blank counts as unset)', () => {
    for (const source of [{}, { key: '', file: '' }, { key: '  \n' }]) {
      const r = loadLicense(source, NOW);
      expect(r).toMatchObject({ state: 'none' });
      expect(r.reason).toMatch(/no licence configured/);
      expect(hasFeature(r, 'webhook')).toBe(false);
      expect(featureStatus(r, 'webhook', NOW)).toMatchObject({ enabled: false, reason: expect.stringMatching(/webhook is disabled.*no licence configured/) });
    }
  });

  it('valid: a licence from license.key grants its features', () => {
    const r = loadLicense({ key: issue() }, NOW);
    expect(r).toMatchObject({ state: 'valid', source: 'license.key', license: { id: 'lic-0001', customer: 'Acme Corp', features: ['webhook'] } });
    expect(r.problem).toBeUndefined();
    expect(r.license!.expiresAt.toISOString()).toBe('2027-01-01T00:00:00.000Z');
    expect(r.license!.issuedAt!.toISOString()).toBe('2026-01-01T00:00:00.000Z');
    expect(r.reason).toBe('licence of "Acme Corp" (lic-0001) valid until 2027-01-01T00:00:00.000Z; features: webhook');
    expect(hasFeature(r, 'webhook')).toBe(true);
    expect(featureStatus(r, 'webhook', NOW).enabled).toBe(true);
  });

  it('valid without the feature: the gate stays shut and says why', () => {
    const r = loadLicense({ key: issue({ features: ['sso'] }) }, NOW);
    expect(r.state).toBe('valid');
    expect(hasFeature(r, 'webhook')).toBe(false);
    expect(featureStatus(r, 'webhook').reason).toMatch(/does not include it \(features: sso\)/);
  });

  it('optional fields: no id, no issued_at; offsets and fractions in the dates', () => {
    const r = loadLicense({ key: encodeLicense({ v: 1, customer: 'B', features: [], expires_at: '2026-12-01T10:00:00.5+02:00' }, testIssuer) }, NOW);
    expect(r).toMatchObject({ state: 'valid', license: { customer: 'B', features: [] } });
    expect(r.license!.id).toBeUndefined();
    expect(r.license!.issuedAt).toBeUndefined();
    expect(r.license!.expiresAt.toISOString()).toBe('2026-12-01T08:00:00.500Z');
    expect(r.reason).toMatch(/features: none$/);
  });

  it('expired: the signature holds but the date has passed (the expiry instant itself is expired)', () => {
    const r = loadLicense({ key: issue({ expires_at: '2026-11-01T00:00:00Z' }) }, NOW);
    expect(r).toMatchObject({ state: 'expired', problem: 'expiry', license: { customer: 'Acme Corp' } });
    expect(r.reason).toBe('license.key: the licence of "Acme Corp" (lic-0001) expired at 2026-11-01T00:00:00.000Z');
    expect(hasFeature(r, 'webhook')).toBe(false);
    expect(featureStatus(r, 'webhook').reason).toMatch(/webhook is disabled.*expired at 2026-11-01/);
    expect(loadLicense({ key: issue({ expires_at: NOW.toISOString() }) }, NOW).state).toBe('expired');
  });

  it('a licence that expires while the process runs: hasFeature(…, now) judges again', () => {
    const r = loadLicense({ key: issue({ expires_at: '2026-11-23T00:00:00Z' }) }, NOW);
    expect(hasFeature(r, 'webhook', NOW)).toBe(true);
    expect(hasFeature(r, 'webhook', new Date('2026-11-23T00:00:00Z'))).toBe(false);
    expect(featureStatus(r, 'webhook', new Date('2026-11-24T00:00:00Z')).reason).toMatch(/expired at 2026-11-23/);
  });

  it('forged: a changed payload under the original signature', () => {
    const [, sig] = issue().split('.');
    for (const change of [{ customer: 'Mallory' }, { expires_at: '2099-01-01T00:00:00Z' }, { features: ['webhook', 'everything'] }]) {
      const body = Buffer.from(JSON.stringify(payload(change))).toString('base64url');
      const r = loadLicense({ key: `${body}.${sig}` }, NOW);
      expect(r).toMatchObject({ state: 'invalid', problem: 'signature' });
      expect(r.license).toBeUndefined();
      expect(r.reason).toMatch(/^license\.key: the signature does not verify against this build's issuer key/);
    }
  });

  it('forged: signed by another key (and a vendor build refuses test licences)', () => {
    const other = generateKeyPairSync('ed25519');
    const r = loadLicense({ key: encodeLicense(payload(), other.privateKey) }, NOW);
    expect(r).toMatchObject({ state: 'invalid', problem: 'signature' });
    // The same check from the other side: a build whose issuer is `other` accepts only its own.
    expect(loadLicense({ key: issue() }, NOW, other.publicKey)).toMatchObject({ state: 'invalid', problem: 'signature' });
    expect(loadLicense({ key: encodeLicense(payload(), other.privateKey) }, NOW, other.publicKey).state).toBe('valid');
  });

  it('malformed text: not two base64url parts, a cut signature', () => {
    const good = issue();
    const cases: [string, RegExp][] = [
      ['not a licence', /two base64url parts/],
      ['a.b.c', /two base64url parts/],
      [`${good}.extra`, /two base64url parts/],
      [good.replace('.', ''), /two base64url parts/],
      [`${good.split('.')[0]}.`, /two base64url parts/],
      [good.replace(/-|_/, '+'), /two base64url parts/],
      [good.slice(0, -10), /signature part is \d+ bytes/],
      ['x'.repeat(20_000), /characters long/],
    ];
    for (const [text, reason] of cases) {
      const r = loadLicense({ key: text }, NOW);
      expect(r, text.slice(0, 40)).toMatchObject({ state: 'invalid', problem: 'format' });
      expect(r.reason).toMatch(/^license\.key: the licence is malformed: /);
      expect(r.reason).toMatch(reason);
    }
  });

  it('malformed payload under a good signature: each field is checked', () => {
    const cases: [string, RegExp][] = [
      ['not json', /not JSON/],
      ['[1]', /not a JSON object/],
      [JSON.stringify({ ...payload(), v: 2 }), /payload version 2/],
      [JSON.stringify({ ...payload(), customer: ' ' }), /no customer/],
      [JSON.stringify({ ...payload(), features: 'webhook' }), /features are not a list/],
      [JSON.stringify({ ...payload(), id: 7 }), /id is not a string/],
      [JSON.stringify({ ...payload(), expires_at: undefined }), /expires_at is not an RFC 3339/],
      [JSON.stringify({ ...payload(), expires_at: '2027-01-01' }), /expires_at is not an RFC 3339/],
      [JSON.stringify({ ...payload(), expires_at: '2027-02-30T00:00:00Z' }), /expires_at is not an RFC 3339/],
      [JSON.stringify({ ...payload(), expires_at: '2027-01-01T00:00:00' }), /expires_at is not an RFC 3339/],
      [JSON.stringify({ ...payload(), issued_at: 'yesterday' }), /issued_at is not an RFC 3339/],
    ];
    for (const [json, reason] of cases) {
      const r = loadLicense({ key: signRaw(json) }, NOW);
      expect(r, json).toMatchObject({ state: 'invalid', problem: 'format' });
      expect(r.reason).toMatch(reason);
    }
  });

  it('whitespace anywhere is ignored (a licence wrapped over lines)', () => {
    const text = issue().replace(/(.{60})/g, '$1\n  ');
    expect(loadLicense({ key: `\n${text}\n` }, NOW).state).toBe('valid');
  });

  it('license.file: the same text in a file; unreadable, missing, empty and directory paths say so', () => {
    const file = join(tmp, 'pennon.lic');
    writeFileSync(file, `${issue()}\n`);
    expect(loadLicense({ file }, NOW)).toMatchObject({ state: 'valid', source: 'license.file', license: { customer: 'Acme Corp' } });

    const missing = loadLicense({ file: join(tmp, 'nope.lic') }, NOW);
    expect(missing).toMatchObject({ state: 'invalid', problem: 'file' });
    expect(missing.reason).toBe(`license.file ${join(tmp, 'nope.lic')} cannot be read: no such file`);
    expect(loadLicense({ file: tmp }, NOW).reason).toMatch(/cannot be read: it is a directory/);
    const empty = join(tmp, 'empty.lic');
    writeFileSync(empty, '\n');
    expect(loadLicense({ file: empty }, NOW)).toMatchObject({ state: 'invalid', problem: 'file', reason: `license.file ${empty} is empty` });

    const expired = join(tmp, 'expired.lic');
    writeFileSync(expired, issue({ expires_at: '2020-01-01T00:00:00Z' }));
    expect(loadLicense({ file: expired }, NOW)).toMatchObject({ state: 'expired', reason: expect.stringMatching(new RegExp(`^license\\.file ${expired}: the licence`)) });
    const garbage = join(tmp, 'garbage.lic');
    writeFileSync(garbage, 'hello');
    expect(loadLicense({ file: garbage }, NOW)).toMatchObject({ state: 'invalid', problem: 'format', reason: expect.stringMatching(/^license\.file .*garbage\.lic: the licence is malformed/) });
  });

  it('key and file together are refused, not guessed between', () => {
    const file = join(tmp, 'both.lic');
    writeFileSync(file, issue());
    expect(loadLicense({ key: issue(), file }, NOW)).toMatchObject({ state: 'invalid', problem: 'config', reason: expect.stringMatching(/both set/) });
  });
});
