import Database from 'better-sqlite3';
import { beforeAll, describe, expect, it } from 'vitest';
import { sqlitePath } from '../../../internal/storage/sql';
import { expectStatus, startServer, type ApiClient, type ApiResponse, useServer, useTokenServer } from '../../support/server';

/**
 * What guards the bulk import route: one transaction (a late validation failure, or a write
 * the database refuses after `drop` has deleted everything, leaves nothing changed), who may
 * call it (the management surface; a namespace-scoped token only into its own namespace, never
 * the whole-instance route), a read-only instance, and its own body limit.
 */

const yaml = { 'content-type': 'application/yaml' };
const post = (api: ApiClient, path: string, body: string): Promise<ApiResponse> => api.request('POST', path, body, yaml);

/** Everything the API shows, namespace by namespace (ids and timestamps included). */
async function everything(api: ApiClient): Promise<unknown> {
  const namespaces = expectStatus(await api.get('/api/v1/namespaces'), 200).namespaces as { key: string }[];
  const out = [];
  for (const ns of namespaces) {
    const p = `/api/v1/namespaces/${ns.key}`;
    out.push({ ns, flags: expectStatus(await api.get(`${p}/flags`), 200), segments: expectStatus(await api.get(`${p}/segments`), 200) });
  }
  return out;
}

describe('the bulk import route is one transaction', () => {
  const server = useServer();
  beforeAll(async () => {
    expectStatus(await post(server.api, '/api/v1/import', 'namespace: kept\nflags:\n- {key: old, name: Old, enabled: true}\nsegments:\n- {key: s, name: S}\n'), 200);
  });

  it('writes nothing when the last document of a stream does not validate', async () => {
    const before = await everything(server.api);
    const stream = `${Array.from({ length: 5 }, (_, i) => `namespace: n${i}\nflags:\n- {key: f, name: F}\n`).join('---\n')}---\nflags:\n- {key: g, name: G, rules: [{segment: missing}]}\n`;
    const res = await post(server.api, '/api/v1/import?drop=true', stream);
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/\(document 6, namespace "default", flag "g", field rules\[0\]\.segment, line \d+\)$/);
    expect(await everything(server.api)).toEqual(before);
  });

  it('rolls back a drop when the database refuses a write part-way', async () => {
    const before = await everything(server.api);
    // A real refusal from the database itself, after validation passed: a trigger.
    const db = new Database(sqlitePath(server.dbUrl));
    db.exec("CREATE TRIGGER refuse_explode BEFORE INSERT ON flags WHEN NEW.key = 'explode' BEGIN SELECT RAISE(ABORT, 'refused by the test trigger'); END");
    try {
      const stream = 'namespace: first\nflags:\n- {key: fine, name: Fine}\n---\nnamespace: second\nflags:\n- {key: explode, name: Explode}\n';
      const res = await post(server.api, '/api/v1/import?drop=true', stream);
      expect(res.status).toBe(500);
      expect(res.body.message).toMatch(/^internal error \(request id [\w-]+\)$/);
      expect(await everything(server.api)).toEqual(before);
      expect((await server.api.get('/api/v1/namespaces/first')).status).toBe(404);
      // The instance's evaluations still see the old state (nothing was announced).
      expect(expectStatus(await server.api.post('/evaluate/v1/variant', { namespaceKey: 'kept', flagKey: 'old', entityId: 'u' }), 200).flagKey).toBe('old');
    } finally {
      db.exec('DROP TRIGGER refuse_explode');
      db.close();
    }
  });
});

describe('who may call the bulk import route', () => {
  const { server, admin, scoped } = useTokenServer('import-route-bootstrap', 'team');

  it('wants a token, as the management API does', async () => {
    const res = await post(server.api, '/api/v1/import', 'flags: []\n');
    expect([res.status, res.body.code]).toEqual([401, 16]);
    expect(expectStatus(await post(admin, '/api/v1/import', 'namespace: team\nflags:\n- {key: a, name: A}\n'), 200).created.flags).toBe(1);
  });

  it('lets a namespace-scoped token import into its namespace only, and never use the whole-instance route', async () => {
    expect(expectStatus(await post(scoped, '/api/v1/namespaces/team/import', 'flags:\n- {key: b, name: B}\n'), 200).created.flags).toBe(1);
    for (const path of ['/api/v1/namespaces/other/import', '/api/v1/import', '/api/v1/import?drop=true']) {
      const res = await post(scoped, path, 'flags:\n- {key: c, name: C}\n');
      expect(res.status, path).toBe(401);
    }
    const flags = expectStatus(await admin.get('/api/v1/namespaces/team/flags'), 200).flags.map((f: { key: string }) => f.key);
    expect(flags).toEqual(['a', 'b']);
    expect(expectStatus(await admin.get('/api/v1/namespaces'), 200).namespaces.map((n: { key: string }) => n.key)).toEqual(['default', 'team']);
  });
});

describe('a read-only instance, and the import body limit', () => {
  it('refuses an import with Flipt\'s read-only error', async () => {
    const server = await startServer({ PENNON_STORAGE_READ_ONLY: 'true' });
    try {
      for (const path of ['/api/v1/import', '/api/v1/namespaces/default/import']) {
        const res = await post(server.api, path, 'flags:\n- {key: a, name: A}\n');
        expect([res.status, res.body], path).toEqual([500, { code: 13, message: 'modification is not allowed in read-only mode', details: [] }]);
      }
      expect(expectStatus(await server.api.get('/api/v1/namespaces/default/flags'), 200).flags).toEqual([]);
    } finally {
      await server.stop();
    }
  });

  it('refuses a stream over server.max_import_bytes with 413 naming the setting', async () => {
    const server = await startServer({ PENNON_SERVER_MAX_IMPORT_BYTES: '4096' });
    try {
      const body = `flags:\n${Array.from({ length: 200 }, (_, i) => `- {key: f${i}, name: F${i}}`).join('\n')}\n`;
      expect(body.length).toBeGreaterThan(4096);
      const res = await post(server.api, '/api/v1/import', body);
      expect([res.status, res.body]).toEqual([413, { code: 8, message: 'the import is larger than server.max_import_bytes (4096 bytes)', details: [] }]);
      expect(expectStatus(await post(server.api, '/api/v1/import', 'flags:\n- {key: small, name: Small}\n'), 200).created.flags).toBe(1);
    } finally {
      await server.stop();
    }
  });
});
