import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken, type Grants } from '../../../internal/auth';
import { ManualClock } from '../../support/clock';
import { GrpcClient } from '../../support/grpc-client';
import { sampleValue } from '../../support/scrape';
import { ApiClient, expectStatus, startServer, type TestServer } from '../../support/server';

/**
 * Built-in roles beyond the permission matrix (permission-matrix.test.ts): a token's role at
 * creation and its ceiling, `/auth/v1/self`'s grants, ListNamespaces for a caller whose roles
 * hold on some namespaces only, and what becomes of a refusal — the audit trail's `authorization`
 * `denied` event (at most one per caller, operation and namespace a minute, and a bounded number
 * in all), the counter, the log line; and roles not enforced with `authorization.required` off.
 */

const BOOTSTRAP = 'pennon-roles-bootstrap-token';
const ENV = {
  PENNON_AUTHENTICATION_REQUIRED: 'true',
  PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
  PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: BOOTSTRAP,
};
const ROLE = 'io.pennon.auth.role';
const GRANTS = 'io.pennon.auth.grants';

interface Line {
  level: number;
  msg: string;
  operation?: string;
}

describe('roles with authorization.required', () => {
  let server: TestServer;
  let dir: string;
  let admin: ApiClient;
  const lines: Line[] = [];
  // The denied events' minute and the log's 10 s read this clock: the tests move it.
  const clock = new ManualClock();
  const bearer = (token: string) => server.api.withHeaders({ authorization: `Bearer ${token}` });
  /** A session as the OIDC method stores one (the sign-in flow is another suite's). */
  let sessions = 0;
  const oidcSession = async (email: string) => {
    const token = `roles-oidc-${email}-${++sessions}-${'y'.repeat(16)}`;
    const auth = await server.service.store.createAuthentication({ method: 'METHOD_OIDC', hashedToken: hashToken(token), metadata: { 'io.flipt.auth.oidc.email': email }, expiresAt: null });
    return { token, id: auth.id, api: bearer(token) };
  };
  const newToken = async (body: Record<string, unknown>, as = admin) => expectStatus(await as.post('/auth/v1/method/token', { name: 't', ...body }), 200);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pennon-roles-'));
    const configPath = join(dir, 'config.yml');
    writeFileSync(
      configPath,
      [
        'authorization:',
        '  required: true',
        '  roles:',
        '    - role: admin',
        '      namespaces: [own]',
        '      match: { emails: [lead@own.test] }',
        '    - role: viewer',
        '      namespaces: [own, ghost]',
        '      match: { emails: [reader@own.test] }',
        '',
      ].join('\n'),
    );
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line) as Line) });
    server = await startServer(ENV, { configPath, clock, logger });
    admin = bearer(BOOTSTRAP);
    for (const ns of ['own', 'other']) expectStatus(await admin.post('/api/v1/namespaces', { key: ns, name: ns }), 200);
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  describe("a token's role", () => {
    it('is what creation asks for, stored as metadata; the creator\'s own role when not asked for', async () => {
      expect((await newToken({ role: 'viewer' })).authentication.metadata[ROLE]).toBe('viewer');
      expect((await newToken({})).authentication.metadata[ROLE]).toBe('admin');
      // What a gRPC client, whose message has no `role`, can send instead.
      expect((await newToken({ metadata: { 'IO.Pennon.Auth.Role': 'editor' } })).authentication.metadata[ROLE]).toBe('editor');
    });

    it('refuses a role that is not one (400 naming role), and two that disagree', async () => {
      for (const body of [{ role: 'owner' }, { role: 'Admin' }, { role: 7 }, { metadata: { [ROLE]: 'root' } }, { role: 'viewer', metadata: { [ROLE]: 'admin' } }]) {
        const res = await admin.post('/auth/v1/method/token', { name: 'bad', ...body });
        expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
        expect(res.body).toMatchObject({ code: 3, details: [] });
        expect(res.body.message).toContain('role');
      }
    });

    it('never stores grants given as metadata: they are computed', async () => {
      const created = await newToken({ role: 'viewer', metadata: { [GRANTS]: '{"global":"admin"}' } });
      expect(created.authentication.metadata).not.toHaveProperty(GRANTS);
      const self = expectStatus(await bearer(created.clientToken).get('/auth/v1/self'), 200);
      expect(JSON.parse(self.metadata[GRANTS])).toEqual({ global: 'viewer', namespaces: {} });
    });

    it("stays under its creator's role: a namespace admin makes tokens for that namespace only", async () => {
      const lead = await oidcSession('lead@own.test');
      const scoped = expectStatus(await lead.api.post('/auth/v1/method/token', { name: 'own-ci', namespaceKey: 'own', role: 'editor' }), 200);
      expect(scoped.authentication.metadata).toMatchObject({ [ROLE]: 'editor', 'io.flipt.auth.token.namespace': 'own' });
      const byDefault = expectStatus(await lead.api.post('/auth/v1/method/token', { name: 'own-admin', namespaceKey: 'own' }), 200);
      expect(byDefault.authentication.metadata[ROLE]).toBe('admin');
      for (const body of [{ name: 'everywhere' }, { name: 'elsewhere', namespaceKey: 'other' }]) {
        const res = await lead.api.post('/auth/v1/method/token', body);
        expect(res.status, res.text).toBe(403);
        expect(res.body).toEqual({ code: 7, message: `permission denied: admin role needed ${body.namespaceKey ? 'on namespace "other"' : 'on every namespace'}`, details: [] });
      }
      // The new token acts as an editor on `own` and nowhere else.
      const ci = bearer(scoped.clientToken);
      expectStatus(await ci.post('/api/v1/namespaces/own/flags', { key: 'by-ci', name: 'x', type: 'BOOLEAN_FLAG_TYPE' }), 200);
      expect((await ci.delete('/api/v1/namespaces/own')).status).toBe(403);
      expect((await ci.get('/api/v1/namespaces/other/flags')).status).toBe(401);
    });

    it('the ceiling holds in the token service itself, whoever calls it', async () => {
      const auth = server.service.services.auth;
      const editor: Grants = { global: 'editor', namespaces: new Map([['own', 'admin']]) };
      const request = { name: 'x', description: '', expiresAt: null, metadata: {}, creator: editor };
      await expect(auth.createToken({ ...request, namespaceKey: '', role: 'admin' })).rejects.toMatchObject({ kind: 'forbidden', message: 'permission denied: a token cannot be given the admin role: its creator holds editor on every namespace' });
      expect((await auth.createToken({ ...request, namespaceKey: '', role: '' })).authentication.metadata[ROLE]).toBe('editor');
      expect((await auth.createToken({ ...request, namespaceKey: 'own', role: 'admin' })).authentication.metadata[ROLE]).toBe('admin');
      expect((await auth.createToken({ ...request, namespaceKey: 'other', role: 'viewer' })).authentication.metadata[ROLE]).toBe('viewer');
      const none: Grants = { global: null, namespaces: new Map() };
      await expect(auth.createToken({ ...request, creator: none, namespaceKey: '', role: 'viewer' })).rejects.toMatchObject({ kind: 'forbidden' });
    });

    it('over gRPC, through the metadata key', async () => {
      const grpc = new GrpcClient(server.service.grpcPort, BOOTSTRAP);
      try {
        const created = await grpc.call('flipt.auth.AuthenticationMethodTokenService/CreateToken', { name: 'grpc', metadata: { [ROLE]: 'viewer' } });
        expect(created.authentication.metadata[ROLE]).toBe('viewer');
        const viewer = grpc.withToken(created.clientToken);
        const refused = await viewer.fails('flipt.Flipt/CreateFlag', { namespaceKey: 'own', key: 'g', name: 'g' });
        expect(refused).toEqual({ code: 7, details: 'permission denied: editor role needed on namespace "own"' });
        viewer.close();
      } finally {
        grpc.close();
      }
    });
  });

  describe('/auth/v1/self', () => {
    it("answers the caller's grants in io.pennon.auth.grants", async () => {
      const viewer = await newToken({ role: 'viewer' });
      const scoped = await newToken({ role: 'editor', namespaceKey: 'own' });
      const reader = await oidcSession('reader@own.test');
      const stranger = await oidcSession('stranger@else.test');
      const grantsOf = async (api: ApiClient) => JSON.parse(expectStatus(await api.get('/auth/v1/self'), 200).metadata[GRANTS]);
      expect(await grantsOf(admin)).toEqual({ global: 'admin', namespaces: {} });
      expect(await grantsOf(bearer(viewer.clientToken))).toEqual({ global: 'viewer', namespaces: {} });
      expect(await grantsOf(reader.api)).toEqual({ global: null, namespaces: { ghost: 'viewer', own: 'viewer' } });
      expect(await grantsOf(stranger.api)).toEqual({ global: null, namespaces: {} });
      // A scoped token is refused on /auth/v1 as Flipt refuses it.
      expect((await bearer(scoped.clientToken).get('/auth/v1/self')).status).toBe(401);
    });
  });

  describe('ListNamespaces', () => {
    it('shows a caller whose roles hold on some namespaces those namespaces alone (existing ones), over HTTP and gRPC', async () => {
      const reader = await oidcSession('reader@own.test');
      const list = expectStatus(await reader.api.get('/api/v1/namespaces'), 200);
      expect(list).toMatchObject({ nextPageToken: '', totalCount: 1 });
      expect(list.namespaces.map((n: { key: string }) => n.key)).toEqual(['own']);
      const grpc = new GrpcClient(server.service.grpcPort, reader.token);
      try {
        expect((await grpc.call('flipt.Flipt/ListNamespaces', {})).namespaces.map((n: { key: string }) => n.key)).toEqual(['own']);
      } finally {
        grpc.close();
      }
      const all = expectStatus(await admin.get('/api/v1/namespaces'), 200).namespaces.map((n: { key: string }) => n.key);
      expect(all).toEqual(['default', 'own', 'other']);
      // A caller with no role at all may not list.
      const stranger = await oidcSession('nobody@else.test');
      expect(await stranger.api.get('/api/v1/namespaces')).toMatchObject({ status: 403, body: { code: 7, message: 'permission denied: viewer role needed on every namespace' } });
    });
  });

  describe('a refusal', () => {
    const deniedEvents = async (ns: string) =>
      expectStatus(await admin.get(`/api/v1/namespaces/${ns}/audit/events?type=authorization&action=denied&limit=100`), 200).events as Record<string, any>[];
    const scrape = async () => (await server.api.get('/metrics')).text;

    it('is recorded in the audit trail once a minute per caller, operation and namespace, counted every time, logged once per 10 s', async () => {
      const viewer = await newToken({ name: 'peeker', role: 'viewer' });
      const api = bearer(viewer.clientToken);
      const before = sampleValue(await scrape(), 'service_authorization_denied_total', { operation: 'CreateSegment', role: 'viewer' });
      const logged = lines.length;
      for (let i = 0; i < 5; i++) {
        const res = await api.post('/api/v1/namespaces/own/segments', { key: `s${i}`, name: 's', matchType: 'ALL_MATCH_TYPE' });
        expect(res.body).toEqual({ code: 7, message: 'permission denied: editor role needed on namespace "own"', details: [] });
      }
      await server.service.services.authorization.denials!.settled();
      let events = (await deniedEvents('own')).filter((e) => e.key === 'CreateSegment');
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        type: 'authorization',
        action: 'denied',
        namespace: 'own',
        key: 'CreateSegment',
        source: 'api',
        metadata: { actor: { authentication: 'token', id: viewer.authentication.id, name: 'peeker' } },
        payload: { operation: 'CreateSegment', namespace: 'own', needed: 'editor', held: 'viewer' },
        before: null,
      });
      expect(sampleValue(await scrape(), 'service_authorization_denied_total', { operation: 'CreateSegment', role: 'viewer' })).toBe(before + 5);
      const warnings = lines.slice(logged).filter((l) => l.operation === 'CreateSegment');
      expect(warnings.map((l) => [l.level, l.msg])).toEqual([[40, 'permission denied: CreateSegment needs the editor role on namespace "own"']]);

      // A minute on: one more event; the same refusal over gRPC is filed under its door.
      clock.advance(61_000);
      expect((await api.post('/api/v1/namespaces/own/segments', { key: 'late', name: 's', matchType: 'ALL_MATCH_TYPE' })).status).toBe(403);
      const grpc = new GrpcClient(server.service.grpcPort, viewer.clientToken);
      try {
        expect((await grpc.fails('flipt.Flipt/DeleteSegment', { namespaceKey: 'own', key: 'x' })).code).toBe(7);
      } finally {
        grpc.close();
      }
      await server.service.services.authorization.denials!.settled();
      events = await deniedEvents('own');
      expect(events.filter((e) => e.key === 'CreateSegment')).toHaveLength(2);
      expect(events.find((e) => e.key === 'DeleteSegment')).toMatchObject({ source: 'grpc', payload: { needed: 'editor', held: 'viewer' } });
      // The 10 s passed too: the suppressed ones summed up, and the next refusal of the kind logged in full again.
      const full = 'permission denied: CreateSegment needs the editor role on namespace "own"';
      expect(lines.slice(logged).filter((l) => l.msg.startsWith(full)).map((l) => l.msg)).toEqual([full, `${full} … and 4 more like it in the last 10 s`, full]);
    });

    it('cannot fill the database: at most 120 events a minute in all, however many namespaces are named', async () => {
      clock.advance(61_000);
      const reader = await oidcSession('reader@own.test');
      const before = (await server.service.store.listAuditEvents({ namespace: null, types: ['authorization'], limit: 10_000 })).length;
      for (let i = 0; i < 150; i += 25) {
        await Promise.all(Array.from({ length: 25 }, (_, j) => reader.api.get(`/api/v1/namespaces/made-up-${i + j}/flags`).then((res) => expect(res.status).toBe(403))));
      }
      await server.service.services.authorization.denials!.settled();
      const after = (await server.service.store.listAuditEvents({ namespace: null, types: ['authorization'], limit: 10_000 })).length;
      expect(after - before).toBe(120);
      expect(sampleValue(await scrape(), 'service_authorization_denied_total', { operation: 'ListFlags', role: 'none' })).toBe(150);
    });
  });
});

describe('roles with authorization.required off', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(ENV);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('every authenticated caller is an admin (a scoped token on its namespace only); roles are still stored', async () => {
    const admin = server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
    const created = expectStatus(await admin.post('/auth/v1/method/token', { name: 'v', role: 'viewer' }), 200);
    expect(created.authentication.metadata[ROLE]).toBe('viewer');
    const viewer = server.api.withHeaders({ authorization: `Bearer ${created.clientToken}` });
    expectStatus(await viewer.post('/api/v1/namespaces', { key: 'made-by-viewer', name: 'x' }), 200);
    expect(JSON.parse(expectStatus(await viewer.get('/auth/v1/self'), 200).metadata[GRANTS])).toEqual({ global: 'admin', namespaces: {} });
  });
});
