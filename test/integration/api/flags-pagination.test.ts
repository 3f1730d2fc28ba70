import { beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, useServer, type ApiResponse } from '../../support/server';

/** Flag list paging in both families (Flipt: `rpc/flipt/validation.go`, `internal/storage/sql/common/flag.go`). */

function expectError(res: ApiResponse, status: number, code: number, message: string): void {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toEqual({ code, message, details: [] });
}

const keysOf = (list: { flags: { key: string }[] }) => list.flags.map((f) => f.key);

interface Family {
  label: string;
  ns: string;
  /** List path, ending in `?` or `&` so parameters can be appended. */
  list: string;
  create: (key: string) => Promise<ApiResponse>;
}

const server = useServer();

const families: Family[] = [
  {
    label: 'Family B',
    ns: 'paging-b',
    list: '/api/v1/namespaces/paging-b/flags?',
    create: (key) => server.api.post('/api/v1/namespaces/paging-b/flags', { key, name: key }),
  },
  {
    label: 'Family A with namespaceKey',
    ns: 'paging-a',
    list: '/api/v1/flags?namespaceKey=paging-a&',
    create: (key) => server.api.post('/api/v1/flags', { key, name: key, namespaceKey: 'paging-a' }),
  },
  {
    // This server's `default` holds only these flags.
    label: 'Family A in default',
    ns: 'default',
    list: '/api/v1/flags?',
    create: (key) => server.api.post('/api/v1/flags', { key, name: key }),
  },
];

describe.each(families)('flag paging: $label', (family) => {
  // Reverse alphabetical, so creation order and key order differ.
  const KEYS = ['g-flag', 'f-flag', 'e-flag', 'd-flag', 'c-flag', 'b-flag', 'a-flag'];
  const list = (params: string) => server.api.get(`${family.list}${params}`);

  beforeAll(async () => {
    if (family.ns !== 'default') {
      expectStatus(await server.api.post('/api/v1/namespaces', { key: family.ns, name: family.ns }), 200);
    }
    for (const key of KEYS) expectStatus(await family.create(key), 200);
  });

  it('without limit, and with limit=0, returns every flag in creation order', async () => {
    for (const params of ['', 'limit=0', 'limit=0&offset=0&pageToken=&reference=']) {
      const all = expectStatus(await list(params), 200);
      expect(keysOf(all)).toEqual(KEYS);
      expect(all.nextPageToken).toBe('');
      expect(all.totalCount).toBe(7);
    }
  });

  it('walks pages of 3 by following nextPageToken until it is ""', async () => {
    const pages: string[][] = [];
    const tokens: string[] = [];
    let token = '';
    do {
      const page = expectStatus(await list(`limit=3${token ? `&pageToken=${encodeURIComponent(token)}` : ''}`), 200);
      expect(Object.keys(page)).toEqual(['flags', 'nextPageToken', 'totalCount']);
      expect(page.totalCount).toBe(7);
      pages.push(keysOf(page));
      token = page.nextPageToken;
      tokens.push(token);
      expect(pages.length).toBeLessThanOrEqual(3);
    } while (token !== '');
    expect(pages).toEqual([KEYS.slice(0, 3), KEYS.slice(3, 6), KEYS.slice(6)]);
    expect(tokens[0]).not.toBe('');
    expect(tokens[1]).not.toBe('');
    expect(tokens[2]).toBe('');
  });

  it('emits no token when the page ends exactly at the last flag', async () => {
    const page = expectStatus(await list('limit=7'), 200);
    expect(keysOf(page)).toEqual(KEYS);
    expect(page.nextPageToken).toBe('');
    const big = expectStatus(await list('limit=1000'), 200);
    expect(keysOf(big)).toEqual(KEYS);
    expect(big.nextPageToken).toBe('');
  });

  it('the token is base64 JSON {"key": <first key of the next page>, "offset": n}', async () => {
    const first = expectStatus(await list('limit=3'), 200);
    expect(first.nextPageToken).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const decoded = JSON.parse(Buffer.from(first.nextPageToken, 'base64').toString('utf8'));
    expect(decoded).toEqual({ key: KEYS[3], offset: 3 });
  });

  it('honours the deprecated offset with a limit', async () => {
    const page = expectStatus(await list('limit=2&offset=2'), 200);
    expect(keysOf(page)).toEqual(KEYS.slice(2, 4));
    expect(page.totalCount).toBe(7);
    expect(page.nextPageToken).not.toBe('');
    const tail = expectStatus(await list('limit=5&offset=5'), 200);
    expect(keysOf(tail)).toEqual(KEYS.slice(5));
    expect(tail.nextPageToken).toBe('');
  });

  it('a pageToken wins over offset', async () => {
    const first = expectStatus(await list('limit=3'), 200);
    const page = expectStatus(await list(`limit=3&offset=5&pageToken=${encodeURIComponent(first.nextPageToken)}`), 200);
    expect(keysOf(page)).toEqual(KEYS.slice(3, 6));
  });

  it('a self-made token of the documented form is honoured', async () => {
    const token = Buffer.from(JSON.stringify({ key: KEYS[5], offset: 5 })).toString('base64');
    const page = expectStatus(await list(`limit=3&pageToken=${encodeURIComponent(token)}`), 200);
    expect(keysOf(page)).toEqual(KEYS.slice(5));
    expect(page.nextPageToken).toBe('');
  });

  it('offset or pageToken without a limit is 400', async () => {
    const message = 'limit must be set when offset or pageToken is set';
    expectError(await list('offset=2'), 400, 3, message);
    expectError(await list('limit=0&offset=2'), 400, 3, message);
    const first = expectStatus(await list('limit=3'), 200);
    expectError(await list(`pageToken=${encodeURIComponent(first.nextPageToken)}`), 400, 3, message);
  });

  it('a bad pageToken is 400 quoting the token', async () => {
    for (const token of ['bm90IGpzb24=', '!!!not-base64']) {
      expectError(
        await list(`limit=3&pageToken=${encodeURIComponent(token)}`),
        400,
        3,
        `pageToken is not valid: "${token}"`,
      );
    }
  });

  it('a limit that is not a number is 400', async () => {
    const res = await list('limit=abc');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ code: 3, details: [] });
    expect(Object.keys(res.body)).toEqual(['code', 'message', 'details']);
  });
});
