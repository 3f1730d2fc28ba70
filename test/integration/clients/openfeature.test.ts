import { FliptProvider } from '@openfeature/flipt-provider';
import { OFREPApi, type EvaluationResponse } from '@openfeature/ofrep-core';
import { OFREPProvider } from '@openfeature/ofrep-provider';
import { ErrorCode, OpenFeature, StandardResolutionReasons, type Client } from '@openfeature/server-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useServer } from '../../support/server';
import { JSON_ATTACHMENT, findEntity, seedClientFixture, thresholdValue, variantBucket } from '../../support/client-fixture';

/**
 * OpenFeature server SDK 1.23.0 with the Flipt provider 0.1.0 (it wraps @flipt-io/flipt and
 * maps Flipt reasons) and the OFREP provider 0.1.3 / ofrep-core 0.1.4, against a live server.
 * No auth: not implemented yet.
 */

const LOW_50 = findEntity((id) => variantBucket('flag1', id) < 500);
const OVER_THRESHOLD = findEntity((id) => thresholdValue('flag_boolean', id) >= 50);
const UNDER_THRESHOLD = findEntity((id) => thresholdValue('flag_boolean', id) < 50);

const server = useServer();

beforeAll(async () => {
  await seedClientFixture(server.api);
  await OpenFeature.setProviderAndWait('flipt-default', new FliptProvider('default', { url: server.url }));
  await OpenFeature.setProviderAndWait('flipt-ns1', new FliptProvider('ns1', { url: server.url }));
  await OpenFeature.setProviderAndWait('ofrep-default', new OFREPProvider({ baseUrl: server.url }));
  await OpenFeature.setProviderAndWait('ofrep-ns1', new OFREPProvider({ baseUrl: server.url, headers: { 'X-Flipt-Namespace': 'ns1' } }));
});
afterAll(async () => {
  await OpenFeature.close();
});

describe('Flipt OpenFeature provider', () => {
  let flipt: Client;
  let fliptNs1: Client;
  beforeAll(() => {
    flipt = OpenFeature.getClient('flipt-default');
    fliptNs1 = OpenFeature.getClient('flipt-ns1');
  });

  it('is the Flipt provider', () => {
    expect(flipt.metadata.providerMetadata.name).toBe('flipt-client-provider');
  });

  it('boolean: MATCH and DEFAULT both become TARGETING_MATCH with the enabled value', async () => {
    const match = await flipt.getBooleanDetails('flag_boolean', false, { targetingKey: 'user-1', fizz: 'buzz' });
    expect(match).toMatchObject({ flagKey: 'flag_boolean', value: true, reason: StandardResolutionReasons.TARGETING_MATCH });
    expect(match.errorCode).toBeUndefined();
    const threshold = await flipt.getBooleanDetails('flag_boolean', false, { targetingKey: UNDER_THRESHOLD });
    expect(threshold).toMatchObject({ value: true, reason: 'TARGETING_MATCH' });
    // flag_boolean is disabled: no rollout matched → DEFAULT with enabled=false → false, not the code default.
    const fallback = await flipt.getBooleanDetails('flag_boolean', true, { targetingKey: OVER_THRESHOLD });
    expect(fallback).toMatchObject({ value: false, reason: 'TARGETING_MATCH' });
    const on = await flipt.getBooleanDetails('flag_boolean_on', false, { targetingKey: 'user-1' });
    expect(on).toMatchObject({ value: true, reason: 'TARGETING_MATCH' });
    const vip = await flipt.getBooleanDetails('flag_boolean_on', true, { targetingKey: 'vip-user' });
    expect(vip).toMatchObject({ value: false, reason: 'TARGETING_MATCH' });
  });

  it('boolean: a missing targetingKey is sent as an empty entityId and still evaluates', async () => {
    const d = await flipt.getBooleanDetails('flag_boolean', false, { fizz: 'buzz' });
    expect(d).toMatchObject({ value: true, reason: 'TARGETING_MATCH' });
    expect(d.errorCode).toBeUndefined();
  });

  it('string: a match gives the variant key with TARGETING_MATCH (variant not filled in)', async () => {
    const d = await flipt.getStringDetails('flag1', 'code-default', { targetingKey: 'user-1', fizz: 'buzz' });
    expect(d).toMatchObject({ value: 'variant1', reason: 'TARGETING_MATCH' });
    expect(d.variant).toBeUndefined();
    expect(await flipt.getStringValue('flag1', 'code-default', { targetingKey: LOW_50 })).toBe('variant1');
    expect(await fliptNs1.getStringValue('flag1', 'code-default', { targetingKey: 'user-1', fizz: 'buzz' })).toBe('variant2');
    expect(await fliptNs1.getStringValue('ns1_only', 'code-default', { targetingKey: 'user-1' })).toBe('ns1_variant');
  });

  it('string: a disabled flag gives the code default with DISABLED', async () => {
    const d = await flipt.getStringDetails('flag_disabled', 'code-default', { targetingKey: 'user-1' });
    expect(d).toMatchObject({ value: 'code-default', reason: StandardResolutionReasons.DISABLED });
    expect(d.errorCode).toBeUndefined();
  });

  it('string: no match gives the code default with DEFAULT (also when the flag has a default variant)', async () => {
    const none = await flipt.getStringDetails('flag_any', 'code-default', { targetingKey: 'user-1', age: '12' });
    expect(none).toMatchObject({ value: 'code-default', reason: StandardResolutionReasons.DEFAULT });
    const dv = await flipt.getStringDetails('flag_default_variant', 'code-default', { targetingKey: 'user-1' });
    expect(dv).toMatchObject({ value: 'code-default', reason: 'DEFAULT' });
  });

  it('number: parses the variant key', async () => {
    const d = await flipt.getNumberDetails('flag_number', 0, { targetingKey: 'user-1' });
    expect(d).toMatchObject({ value: 42, reason: 'TARGETING_MATCH' });
  });

  it('number: a non-numeric variant key is a TYPE_MISMATCH', async () => {
    const d = await flipt.getNumberDetails('flag1', 7, { targetingKey: 'user-1', fizz: 'buzz' });
    expect(d).toMatchObject({ value: 7, reason: 'ERROR', errorCode: ErrorCode.TYPE_MISMATCH });
  });

  it('object: parses the variant attachment', async () => {
    const d = await flipt.getObjectDetails('flag_json', {}, { targetingKey: 'user-1' });
    expect(d).toMatchObject({ value: JSON_ATTACHMENT, reason: 'TARGETING_MATCH' });
  });

  it('context values are stringified by the provider: numbers, booleans and nested objects are accepted', async () => {
    expect(await flipt.getStringValue('flag_any', 'd', { targetingKey: 'user-1', age: 33 })).toBe('any_match');
    expect(await flipt.getStringValue('flag_any', 'd', { targetingKey: 'user-1', beta: true })).toBe('any_match');
    expect(await flipt.getStringValue('flag_any', 'd', { targetingKey: 'user-1', age: 17, beta: false })).toBe('d');
    const nested = await flipt.getStringDetails('flag1', 'd', { targetingKey: 'user-1', fizz: 'buzz', nested: { x: 1 }, list: [1, 2], nothing: null });
    expect(nested).toMatchObject({ value: 'variant1', reason: 'TARGETING_MATCH' });
    // A Date becomes Date.toString() (not RFC 3339), so it cannot match the datetime segment.
    const date = await flipt.getStringDetails('flag_entity', 'd', { targetingKey: 'user-1', signup: new Date('2025-06-01T00:00:00Z') });
    expect(date).toMatchObject({ value: 'd', reason: 'DEFAULT' });
    expect(date.errorCode).toBeUndefined();
  });

  it('errors: an unknown flag is GENERAL with the server message (not FLAG_NOT_FOUND)', async () => {
    const d = await flipt.getBooleanDetails('missing', true, { targetingKey: 'user-1' });
    expect(d).toMatchObject({ value: true, reason: 'ERROR', errorCode: ErrorCode.GENERAL, errorMessage: 'flag "default/missing" not found' });
    const s = await fliptNs1.getStringDetails('missing', 'x', { targetingKey: 'user-1' });
    expect(s).toMatchObject({ value: 'x', errorCode: 'GENERAL', errorMessage: 'flag "ns1/missing" not found' });
  });

  it('errors: the wrong flag type is GENERAL with the server message', async () => {
    const d = await flipt.getStringDetails('flag_boolean', 'x', { targetingKey: 'user-1' });
    expect(d).toMatchObject({ value: 'x', errorCode: 'GENERAL', errorMessage: 'flag type BOOLEAN_FLAG_TYPE invalid' });
    const b = await flipt.getBooleanDetails('flag1', false, { targetingKey: 'user-1' });
    expect(b).toMatchObject({ value: false, errorCode: 'GENERAL', errorMessage: 'flag type VARIANT_FLAG_TYPE invalid' });
  });
});

describe('OFREP provider', () => {
  let ofrep: Client;
  let ofrepNs1: Client;
  beforeAll(() => {
    ofrep = OpenFeature.getClient('ofrep-default');
    ofrepNs1 = OpenFeature.getClient('ofrep-ns1');
  });

  it('is the OFREP provider', () => {
    expect(ofrep.metadata.providerMetadata.name).toBe('OpenFeature Remote Evaluation Protocol Server');
  });

  it('boolean: JSON boolean value, "true"/"false" variant, empty metadata', async () => {
    const match = await ofrep.getBooleanDetails('flag_boolean', false, { targetingKey: 'user-1', fizz: 'buzz' });
    expect(match).toMatchObject({ value: true, variant: 'true', reason: 'TARGETING_MATCH', flagMetadata: {} });
    expect(match.errorCode).toBeUndefined();
    const dflt = await ofrep.getBooleanDetails('flag_boolean', true, { targetingKey: OVER_THRESHOLD });
    expect(dflt).toMatchObject({ value: false, variant: 'false', reason: 'DEFAULT', flagMetadata: {} });
  });

  it('string: value and variant are the variant key, metadata has segments and attachment', async () => {
    const d = await ofrep.getStringDetails('flag1', 'code-default', { targetingKey: 'user-1', fizz: 'buzz' });
    expect(d).toMatchObject({ value: 'variant1', variant: 'variant1', reason: 'TARGETING_MATCH' });
    expect(d.flagMetadata).toEqual({ segments: 'segment1', attachment: '{"v":1}' });
    const split = await ofrep.getStringDetails('flag1', 'code-default', { targetingKey: LOW_50 });
    expect(split).toMatchObject({ value: 'variant1', reason: 'TARGETING_MATCH', flagMetadata: { segments: 'everyone' } });
  });

  it('string: default variant → DEFAULT with the variant; disabled → DISABLED with ""; no match → UNKNOWN with ""', async () => {
    const dv = await ofrep.getStringDetails('flag_default_variant', 'code-default', { targetingKey: 'user-1' });
    expect(dv).toMatchObject({ value: 'dv_default', variant: 'dv_default', reason: 'DEFAULT', flagMetadata: { attachment: '{"d":true}' } });
    const disabled = await ofrep.getStringDetails('flag_disabled', 'code-default', { targetingKey: 'user-1' });
    expect(disabled).toMatchObject({ value: '', variant: '', reason: 'DISABLED', flagMetadata: {} });
    const none = await ofrep.getStringDetails('flag_any', 'code-default', { targetingKey: 'user-1' });
    expect(none).toMatchObject({ value: '', variant: '', reason: 'UNKNOWN', flagMetadata: {} });
  });

  it('number and object flags: Flipt sends the variant key as a string, so the provider reports TYPE_MISMATCH', async () => {
    const n = await ofrep.getNumberDetails('flag_number', 0, { targetingKey: 'user-1' });
    expect(n).toMatchObject({ value: 0, reason: 'ERROR', errorCode: ErrorCode.TYPE_MISMATCH });
    const o = await ofrep.getObjectDetails('flag_json', { fallback: true }, { targetingKey: 'user-1' });
    expect(o).toMatchObject({ value: { fallback: true }, errorCode: ErrorCode.TYPE_MISMATCH });
    // The string form carries the raw variant key and the attachment in metadata.
    const s = await ofrep.getStringDetails('flag_json', '', { targetingKey: 'user-1' });
    expect(s.value).toBe('json_variant');
    expect(JSON.parse(String(s.flagMetadata.attachment))).toEqual(JSON_ATTACHMENT);
    expect(await ofrep.getStringValue('flag_number', '', { targetingKey: 'user-1' })).toBe('42');
  });

  it('unknown flag → FLAG_NOT_FOUND with Flipt details', async () => {
    const d = await ofrep.getBooleanDetails('missing', true, { targetingKey: 'user-1' });
    expect(d).toMatchObject({ value: true, reason: 'ERROR', errorCode: ErrorCode.FLAG_NOT_FOUND, errorMessage: 'flag was not found missing' });
  });

  it('X-Flipt-Namespace: ns1 selects ns1', async () => {
    expect(await ofrepNs1.getStringDetails('flag1', 'd', { targetingKey: 'user-1', fizz: 'buzz' })).toMatchObject({ value: 'variant2', reason: 'TARGETING_MATCH' });
    expect(await ofrepNs1.getStringValue('ns1_only', 'd', { targetingKey: 'user-1' })).toBe('ns1_variant');
    expect(await ofrep.getStringDetails('ns1_only', 'd', { targetingKey: 'user-1' })).toMatchObject({ value: 'd', errorCode: 'FLAG_NOT_FOUND' });
  });

  it('accepts non-string context values: numbers, booleans, nested objects, arrays, Dates', async () => {
    const age = await ofrep.getStringDetails('flag_any', 'd', { targetingKey: 'user-1', age: 33 });
    expect(age).toMatchObject({ value: 'any_match', reason: 'TARGETING_MATCH', flagMetadata: { segments: 'segment_any' } });
    expect(await ofrep.getStringValue('flag_any', 'd', { targetingKey: 'user-1', beta: true })).toBe('any_match');
    const noMatch = await ofrep.getStringDetails('flag_any', 'd', { targetingKey: 'user-1', age: 12, beta: false });
    expect(noMatch).toMatchObject({ value: '', reason: 'UNKNOWN' });
    expect(noMatch.errorCode).toBeUndefined();
    const nested = await ofrep.getStringDetails('flag1', 'd', { targetingKey: 'user-1', fizz: 'buzz', nested: { a: { b: [1, 2] } }, list: ['x', 1], nothing: null });
    expect(nested).toMatchObject({ value: 'variant1', reason: 'TARGETING_MATCH' });
    expect(nested.errorCode).toBeUndefined();
    // OFREP serializes a Date as an ISO string, which the datetime constraint parses.
    const date = await ofrep.getStringDetails('flag_entity', 'd', { targetingKey: 'user-1', signup: new Date('2025-06-01T00:00:00Z') });
    expect(date).toMatchObject({ value: 'recent', reason: 'TARGETING_MATCH', flagMetadata: { segments: 'segment_datetime' } });
  });
});

describe('OFREP bulk (OFREPApi.postBulkEvaluateFlags)', () => {
  const api = () => new OFREPApi(server.url);
  const context = { targetingKey: 'user-1', fizz: 'buzz', age: 40 };
  const ENABLED_DEFAULT = ['flag1', 'flag_number', 'flag_json', 'flag_default_variant', 'flag_any', 'flag_entity', 'flag_boolean', 'flag_boolean_on'];

  it('evaluates every boolean flag and every enabled variant flag, each equal to its single evaluation', async () => {
    const bulk = await api().postBulkEvaluateFlags({ context });
    expect(bulk.httpStatus).toBe(200);
    if (bulk.httpStatus !== 200) return;
    const flags = (bulk.value.flags ?? []) as (EvaluationResponse & { key: string })[];
    expect(flags.map((f) => f.key)).toEqual(ENABLED_DEFAULT);
    for (const f of flags) {
      const single = await api().postEvaluateFlags(f.key, { context });
      expect(single.httpStatus, f.key).toBe(200);
      expect(f, f.key).toEqual(single.value);
    }
    expect(flags.find((f) => f.key === 'flag1')).toEqual({ key: 'flag1', reason: 'TARGETING_MATCH', variant: 'variant1', value: 'variant1', metadata: { segments: 'segment1', attachment: '{"v":1}' } });
    expect(flags.find((f) => f.key === 'flag_boolean')).toEqual({ key: 'flag_boolean', reason: 'TARGETING_MATCH', variant: 'true', value: true, metadata: {} });
  });

  it('answers 304 with the ETag when If-None-Match carries the returned ETag', async () => {
    const first = await api().postBulkEvaluateFlags({ context });
    expect(first.httpStatus).toBe(200);
    const etag = first.httpResponse?.headers.get('etag');
    expect(etag).toBeTruthy();
    const again = await api().postBulkEvaluateFlags({ context });
    expect(again.httpResponse?.headers.get('etag')).toBe(etag);
    const second = await api().postBulkEvaluateFlags({ context }, { headers: { 'If-None-Match': etag! } });
    expect(second.httpStatus).toBe(304);
    expect(second.value).toBeUndefined();
    expect(second.httpResponse?.headers.get('etag')).toBe(etag);
    // A different context gives a different answer, so the old ETag no longer matches.
    const other = await api().postBulkEvaluateFlags({ context: { targetingKey: 'vip-user' } }, { headers: { 'If-None-Match': etag! } });
    expect(other.httpStatus).toBe(200);
    expect(other.httpResponse?.headers.get('etag')).not.toBe(etag);
  });

  it('honours context.flags and X-Flipt-Namespace', async () => {
    const some = await api().postBulkEvaluateFlags({ context: { ...context, flags: 'flag1, flag_disabled' } }, { headers: { 'X-Flipt-Namespace': 'ns1' } });
    expect(some.httpStatus).toBe(200);
    if (some.httpStatus !== 200) return;
    expect(some.value.flags).toEqual([
      { key: 'flag1', reason: 'TARGETING_MATCH', variant: 'variant2', value: 'variant2', metadata: { segments: 'segment1' } },
      { key: 'flag_disabled', reason: 'DISABLED', variant: '', value: '', metadata: {} },
    ]);
    const all = await api().postBulkEvaluateFlags({ context }, { headers: { 'X-Flipt-Namespace': 'ns1' } });
    if (all.httpStatus !== 200) throw new Error(`bulk ns1: ${all.httpStatus}`);
    expect((all.value.flags as { key: string }[]).map((f) => f.key)).toEqual([...ENABLED_DEFAULT, 'ns1_only']);
  });

  it('fails the whole bulk request with FLAG_NOT_FOUND for an unknown key in context.flags', async () => {
    const res = await api().postBulkEvaluateFlags({ context: { targetingKey: 'user-1', flags: 'flag1,missing' } });
    expect(res.httpStatus).toBe(404);
    expect(res.value).toMatchObject({ errorCode: 'FLAG_NOT_FOUND', errorDetails: 'flag was not found missing' });
  });
});
