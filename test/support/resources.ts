import { expect } from 'vitest';
import { expectStatus, type ApiClient, type ApiResponse } from './server';

/** RFC 3339 in UTC with 0, 3, 6 or 9 fractional digits, as protojson writes timestamps. */
export const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}|\.\d{6}|\.\d{9})?Z$/;
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let serial = 0;
/** A key no other test or attempt has used (Flipt's key pattern): a retried test runs against the same server. */
export const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}${(serial++).toString(36)}`;

/** Asserts Flipt's grpc-gateway error body exactly: `{code, message, details: []}`. */
export function expectError(res: ApiResponse, status: number, message: string): void {
  const code = status === 404 ? 5 : status === 400 ? 3 : status === 501 ? 12 : -1;
  expect({ status: res.status, body: res.body }).toEqual({ status, body: { code, message, details: [] } });
}

/** Creates a fresh namespace and returns its Family B prefix `/api/v1/namespaces/{ns}`. */
export async function newNamespace(api: ApiClient, prefix = 'ns'): Promise<{ ns: string; p: string }> {
  const ns = unique(prefix);
  expectStatus(await api.post('/api/v1/namespaces', { key: ns, name: ns }), 200);
  return { ns, p: `/api/v1/namespaces/${ns}` };
}

export async function createSegment(api: ApiClient, p: string, key = unique('seg')): Promise<string> {
  expectStatus(await api.post(`${p}/segments`, { key, name: key }), 200);
  return key;
}

export async function createFlag(api: ApiClient, p: string, type = 'VARIANT_FLAG_TYPE', key = unique('flag')): Promise<string> {
  expectStatus(await api.post(`${p}/flags`, { key, name: key, type }), 200);
  return key;
}

export async function createVariant(api: ApiClient, p: string, flagKey: string, key = unique('var')): Promise<string> {
  return expectStatus(await api.post(`${p}/flags/${flagKey}/variants`, { key }), 200).id as string;
}

/** Decodes a SQL-backend page token: base64 of compact JSON. */
export function decodeToken(token: string): unknown {
  return JSON.parse(Buffer.from(token, 'base64').toString('utf8'));
}

export function sortedKeys(o: object): string[] {
  return Object.keys(o).sort();
}
