import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ClientReadableStream, ServiceError } from '@grpc/grpc-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '../../../internal/auth';
import { ANY_GRANT, LEAST_ROLE, PERMISSIONS, roleAtLeast, type RoleName } from '../../../internal/wire/permissions';
import { OPERATIONS, ROUTES, type OperationName, type RouteSpec } from '../../../internal/wire/routes';
import { GrpcClient } from '../../support/grpc-client';
import { fillTemplate, routeTemplates } from '../../support/route-templates';
import { expectStatus, startServer, type TestServer } from '../../support/server';

/**
 * THE PERMISSION MATRIX (issue 21): every route the server registered (read from its route table,
 * each with its wire-table entry) and every gRPC method of the table, × callers of each role —
 * global tokens, namespace-scoped tokens, and identities whose roles come from
 * `authorization.roles` bindings on one namespace —, × a namespace they hold a role in (`own`)
 * and one they do not (`other`). What each answer must be is computed from the table
 * (wire/permissions.ts): allowed → anything but 401/403 (and no 5xx); denied → 403 with Flipt's
 * PermissionDenied body naming the role needed and where (gRPC: PERMISSION_DENIED); a scoped
 * token off its namespace or surface → 401, Flipt's rule. Nothing is listed by hand: a route added
 * to the table is covered here, and one the table has that nothing covers fails the test.
 */

const BOOTSTRAP = 'pennon-matrix-bootstrap-token';
const OWN = 'own';
const OTHER = 'other';
const PLACEHOLDER = '00000000-0000-4000-8000-00000000abcd';
const ROLES: RoleName[] = ['viewer', 'editor', 'admin'];
const THREADED = new Set<OperationName>(['ImportNamespace', 'ImportAll', 'ExportNamespace', 'ExportAll']);
/** Requests in flight at once. */
const BATCH = 16;

interface Caller {
  label: string;
  token: string;
  global: RoleName | null;
  /** The role held on `own` (besides `global`). */
  own: RoleName | null;
  /** A namespace-scoped token (scope `own`): Flipt's 401 off its namespace and surfaces. */
  scoped: boolean;
}

type Outcome = 'allowed' | 'denied' | 'unauthenticated';

/** What the table says a caller gets for an operation on `ns` (null: the request names no namespace). */
function expected(caller: Caller, name: OperationName, surface: string, ns: string | null): Outcome {
  const permission = PERMISSIONS[name];
  if (permission === 'public') return 'allowed';
  // OFREP's event stream authenticates itself, as OFREP does.
  const effective = name === 'OfrepEventStream' ? 'ofrep' : surface;
  if (caller.scoped && (!['management', 'evaluation'].includes(effective) || ns !== OWN)) return 'unauthenticated';
  const needed = LEAST_ROLE[permission];
  if (needed === null) return 'allowed';
  if (ns === null) return roleAtLeast(caller.global, needed) || (ANY_GRANT.has(name) && (caller.global !== null || caller.own !== null)) ? 'allowed' : 'denied';
  const held = ns === OWN ? [caller.global, caller.own] : [caller.global];
  return held.some((role) => roleAtLeast(role, needed)) ? 'allowed' : 'denied';
}

const deniedMessage = (name: OperationName, ns: string | null) =>
  `permission denied: ${LEAST_ROLE[PERMISSIONS[name]]} role needed ${ns === null ? 'on every namespace' : `on namespace "${ns}"`}`;

/** One HTTP request of the matrix: a route of the server's table with its parameters filled, its namespace named. */
interface Probe {
  name: OperationName;
  spec: RouteSpec;
  method: string;
  path: string;
  ns: string | null;
  body?: string;
  headers: Record<string, string>;
}

/** The namespaces a route can be asked about: own and other; none when it names none (or may name none). */
function namespaceChoices(spec: RouteSpec): (string | null)[] {
  const read = spec.namespace;
  if (read.from === 'none') return [null];
  return read.from === 'body' && read.optional ? [OWN, OTHER, null] : [OWN, OTHER];
}

/** A request shaped by the route: parameters filled, the namespace where its table entry reads it, a body good enough for the gate. */
function probeOf(spec: RouteSpec, method: string, url: string, ns: string | null): Probe {
  const read = spec.namespace;
  const headers: Record<string, string> = {};
  let path = fillTemplate(url, (param) => (read.from === 'path' && param === read.param ? ns! : param === '*' ? 'anything' : PLACEHOLDER));
  if (!path.startsWith('/')) path = `/${path}`;
  const body: Record<string, unknown> = {};
  const hasBody = method === 'POST' || method === 'PUT';
  switch (read.from) {
    case 'family-a':
      if (hasBody) body.namespaceKey = ns;
      else path += `?namespaceKey=${ns}`;
      break;
    case 'body':
      if (ns !== null) body[read.field] = ns;
      break;
    case 'evaluation':
      Object.assign(body, { namespaceKey: ns, flagKey: 'nope', entityId: 'e' });
      break;
    case 'batch':
      body.requests = [{ namespaceKey: ns, flagKey: 'nope', entityId: 'e' }];
      break;
    case 'header':
      headers['x-flipt-namespace'] = ns!;
      break;
  }
  if (spec.name === 'CreateToken') body.name = 'matrix';
  // Answered by a thread of their own, seconds each under load: a format they refuse (400, after the gate) keeps them cheap.
  if (THREADED.has(spec.name)) path += `${path.includes('?') ? '&' : '?'}format=matrix`;
  if (spec.name === 'ExpireAuthenticationSelf') path += '?expiresAt=2099-01-01T00:00:00Z'; // allowed, and harmless
  if (method === 'OPTIONS') Object.assign(headers, { origin: 'https://example.com', 'access-control-request-method': 'GET' });
  return { name: spec.name, spec, method, path, ns, headers, ...(hasBody && { body: JSON.stringify(body) }) };
}

async function send(server: TestServer, caller: Caller, probe: Probe): Promise<{ status: number; text: string }> {
  const res = await fetch(server.url + probe.path, {
    method: probe.method,
    headers: { authorization: `Bearer ${caller.token}`, ...(probe.body !== undefined && { 'content-type': 'application/json' }), ...probe.headers },
    body: probe.body,
    signal: AbortSignal.timeout(10_000),
  });
  // Streams (SSE, the client stream) stay open: an allowed one is judged by its status alone.
  if (res.status < 400) {
    await res.body?.cancel();
    return { status: res.status, text: '' };
  }
  return { status: res.status, text: await res.text() };
}

/** The refusal's message, whichever error body the route family writes (Flipt's, OFREP's, a stream's error line). */
function refusalMessage(text: string): { code?: number; message?: string } {
  const body = JSON.parse(text) as Record<string, any>;
  if ('errorCode' in body) return { code: body.errorCode === 'GENERAL' ? 7 : -1, message: body.errorDetails };
  const error = 'error' in body ? body.error : body;
  expect(error.details).toEqual([]);
  return { code: error.code, message: error.message };
}

/** Outcomes seen per permission: the matrix must see each role-bearing permission both allowed and denied, or it proves nothing. */
function tally(): { see(name: OperationName, outcome: Outcome): void; check(): void } {
  const seen = new Map<string, Set<Outcome>>();
  return {
    see(name, outcome) {
      const permission = PERMISSIONS[name];
      if (!seen.has(permission)) seen.set(permission, new Set());
      seen.get(permission)!.add(outcome);
    },
    check() {
      for (const permission of ['evaluate', 'read', 'write', 'admin']) expect([...(seen.get(permission) ?? [])].sort(), permission).toEqual(['allowed', 'denied', 'unauthenticated']);
    },
  };
}

/** A server stream's first message (then cancelled), or its error; at most 10 s. */
function firstOf(stream: ClientReadableStream<unknown>): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error('no message within 10 s')), 10_000);
    stream.once('data', () => {
      clearTimeout(timer);
      stream.on('error', () => undefined); // the cancellation's own CANCELLED
      stream.cancel();
      resolvePromise();
    });
    stream.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

async function inBatches<T>(items: T[], run: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += BATCH) await Promise.all(items.slice(i, i + BATCH).map(run));
}

describe('the permission matrix', () => {
  let server: TestServer;
  let dir: string;
  const callers: Caller[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'pennon-matrix-'));
    const configPath = join(dir, 'config.yml');
    // Roles through bindings: an OIDC identity per role, on `own` only; one that matches nothing (default_role none).
    const bindings = ROLES.map((role) => `    - role: ${role}\n      namespaces: [${OWN}]\n      match:\n        emails: [${role}@own.test]`).join('\n');
    writeFileSync(configPath, `authorization:\n  required: true\n  roles:\n${bindings}\n`);
    server = await startServer(
      {
        PENNON_AUTHENTICATION_REQUIRED: 'true',
        PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true',
        PENNON_AUTHENTICATION_METHODS_TOKEN_BOOTSTRAP_TOKEN: BOOTSTRAP,
        // More of the table's routes exist with CORS on.
        PENNON_CORS_ENABLED: 'true',
      },
      { configPath },
    );
    const admin = server.api.withHeaders({ authorization: `Bearer ${BOOTSTRAP}` });
    for (const ns of [OWN, OTHER]) {
      expectStatus(await admin.post('/api/v1/namespaces', { key: ns, name: ns }), 200);
      // A flag the matrix never names: deleting the namespace is refused, so it stays for every caller.
      expectStatus(await admin.post(`/api/v1/namespaces/${ns}/flags`, { key: 'keep', name: 'keep', type: 'BOOLEAN_FLAG_TYPE' }), 200);
    }
    for (const role of ROLES) {
      for (const scoped of [false, true]) {
        const body = { name: `${role}${scoped ? '-own' : ''}`, role, ...(scoped && { namespaceKey: OWN }) };
        const { clientToken } = expectStatus(await admin.post('/auth/v1/method/token', body), 200);
        callers.push({ label: `${scoped ? 'scoped' : 'global'} ${role} token`, token: clientToken, global: scoped ? null : role, own: scoped ? role : null, scoped });
      }
    }
    // Sessions as the OIDC method stores them (a row, a client token), made here: the sign-in flow is not this test's.
    for (const who of [...ROLES, 'nobody'] as const) {
      const token = `matrix-oidc-${who}-${'x'.repeat(20)}`;
      await server.service.store.createAuthentication({ method: 'METHOD_OIDC', hashedToken: hashToken(token), metadata: { 'io.flipt.auth.oidc.email': `${who}@own.test` }, expiresAt: null });
      callers.push({ label: `OIDC ${who} on own`, token, global: null, own: who === 'nobody' ? null : who, scoped: false });
    }
  });
  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('covers every operation of the table that this server serves, and the table covers every route it registered', () => {
    const registered = new Set(server.service.app.routeTable.map((r) => r.spec.name));
    for (const r of server.service.app.routeTable) expect(ROUTES, `${r.method} ${r.url}`).toContain(r.spec);
    // What this configuration leaves out is all that is missing: Git environments and their
    // webhook, and the sign-in methods' routes (OIDC, GitHub, Kubernetes), which need a provider
    // or a cluster to answer anything but its own refusal. Those are public — no credential
    // exists yet — and their own suites (oidc-*, github-sign-in, kubernetes) drive them with
    // authentication required.
    const absent = (Object.keys(OPERATIONS) as OperationName[]).filter((name) => !registered.has(name));
    const signIns: OperationName[] = ['GithubAuthorizeUrl', 'GithubCallback', 'OidcAuthorizeUrl', 'OidcCallback', 'VerifyServiceAccount'];
    expect(absent.sort()).toEqual(['ListEnvironments', 'Webhook', ...signIns].sort());
    for (const name of signIns) expect(PERMISSIONS[name], name).toBe('public');
  });

  it('over HTTP: allowed → not 401/403, denied → 403 PermissionDenied naming the role and namespace', async () => {
    const templates = routeTemplates(server);
    const probes: Probe[] = [];
    let staticFiles = 0;
    for (const { method, url, spec } of templates) {
      // The dashboard's files are one public route each: a few stand for them all.
      if (spec.staticFiles && ++staticFiles > 4) continue;
      for (const ns of namespaceChoices(spec)) probes.push(probeOf(spec, method, url, ns));
    }
    // The evaluation fast lane answers before Fastify; a query string sends the same request to the Fastify route.
    for (const p of [...probes]) if (p.name === 'EvaluateVariant' || p.name === 'EvaluateBoolean') probes.push({ ...p, path: `${p.path}?via=fastify` });

    const failures: string[] = [];
    const seen = new Set<OperationName>();
    const outcomes = tally();
    await inBatches(
      callers.flatMap((caller) => probes.map((probe) => ({ caller, probe }))),
      async ({ caller, probe }) => {
        seen.add(probe.name);
        const outcome = expected(caller, probe.name, probe.spec.surface, probe.ns);
        outcomes.see(probe.name, outcome);
        const answer = await send(server, caller, probe).catch((err: Error) => err);
        if (answer instanceof Error) return void failures.push(`${caller.label}: ${probe.method} ${probe.path} (${probe.name}, expected ${outcome}): ${answer.message}`);
        const { status, text } = answer;
        const where = `${caller.label}: ${probe.method} ${probe.path} (${probe.name}, expected ${outcome}) → ${status} ${text.slice(0, 160)}`;
        if (outcome === 'allowed') {
          if (status === 401 || status === 403 || status >= 500) failures.push(where);
        } else if (outcome === 'unauthenticated') {
          if (status !== 401) failures.push(where);
        } else if (status !== 403) failures.push(where);
        else if (probe.method !== 'HEAD') {
          const { code, message } = refusalMessage(text);
          if (code !== 7 || message !== deniedMessage(probe.name, probe.ns)) failures.push(`${where}: wrong refusal`);
        }
      },
    );
    expect(failures).toEqual([]);
    outcomes.check();
    // Every operation the server registered was asked for.
    expect([...seen].sort()).toEqual([...new Set(server.service.app.routeTable.map((r) => r.spec.name))].sort());
  }, 120_000);

  it('over gRPC: every method of the table (and flagd\'s, its EventStream too), PERMISSION_DENIED exactly where HTTP answers 403', async () => {
    const registered = new Set(server.service.app.routeTable.map((r) => r.spec.name));
    interface Call {
      name: OperationName | 'flagd';
      rpc: string;
      spec: Pick<RouteSpec, 'surface' | 'namespace'>;
      ns: string | null;
      message: Record<string, unknown>;
      metadata: Record<string, string>;
    }
    const calls: Call[] = [];
    for (const [name, operation] of Object.entries(OPERATIONS) as [OperationName, (typeof OPERATIONS)[OperationName]][]) {
      if (operation.rpc === null || operation.rpc.startsWith('grpc.health.') || !registered.has(name)) continue;
      // The method stands for the operation's last route (Family A where there are two), as calls.ts has it.
      const spec = ROUTES.filter((r) => r.name === name).at(-1)!;
      for (const ns of namespaceChoices(spec)) {
        const probe = probeOf(spec, spec.method, spec.path, ns);
        const message: Record<string, unknown> = { ...(probe.body ? JSON.parse(probe.body) : {}) };
        for (const m of spec.path.matchAll(/:(\w+)/g)) message[m[1]] = spec.namespace.from === 'path' && spec.namespace.param === m[1] ? ns : PLACEHOLDER;
        if (spec.namespace.from === 'family-a') message.namespaceKey = ns;
        if (name === 'ExpireAuthenticationSelf') message.expiresAt = { seconds: '4070908800', nanos: 0 };
        calls.push({ name, rpc: operation.rpc, spec, ns, message, metadata: probe.headers });
      }
    }
    for (const generation of ['v1', 'v2']) {
      const methods = ['ResolveBoolean', 'ResolveString', 'ResolveFloat', 'ResolveInt', 'ResolveObject', ...(generation === 'v1' ? ['ResolveAll'] : [])];
      for (const method of methods) {
        for (const ns of [OWN, OTHER]) {
          calls.push({ name: 'flagd', rpc: `flagd.evaluation.${generation}.Service/${method}`, spec: { surface: 'evaluation', namespace: { from: 'header' } }, ns, message: { flagKey: 'nope', context: {} }, metadata: { 'x-flipt-namespace': ns } });
        }
      }
    }

    // flagd's EventStream, server-streaming: its first message (provider_ready) or its refusal.
    for (const generation of ['v1', 'v2']) {
      for (const ns of [OWN, OTHER]) calls.push({ name: 'flagd', rpc: `flagd.evaluation.${generation}.Service/EventStream`, spec: { surface: 'evaluation', namespace: { from: 'header' } }, ns, message: {}, metadata: { 'x-flipt-namespace': ns } });
    }
    const failures: string[] = [];
    const outcomes = tally();
    const clients = new Map(callers.map((c) => [c, new GrpcClient(server.service.grpcPort, c.token)]));
    try {
      await inBatches(
        callers.flatMap((caller) => calls.map((call) => ({ caller, call }))),
        async ({ caller, call }) => {
          const opName: OperationName = call.name === 'flagd' ? 'EvaluateVariant' : call.name; // flagd: an evaluation
          const outcome = expected(caller, opName, call.spec.surface, call.ns);
          outcomes.see(opName, outcome);
          let code = 0;
          let details = '';
          try {
            const client = clients.get(caller)!;
            if (call.rpc.endsWith('/EventStream')) await firstOf(client.stream(call.rpc, call.message, call.metadata));
            else await client.call(call.rpc, call.message, call.metadata);
          } catch (err) {
            ({ code, details } = err as ServiceError);
          }
          const where = `${caller.label}: ${call.rpc} on ${call.ns ?? '(none)'} (expected ${outcome}) → ${code} ${details}`;
          // 16 UNAUTHENTICATED, 7 PERMISSION_DENIED; 13 INTERNAL and 12 UNIMPLEMENTED are never right here.
          if (outcome === 'allowed') {
            if ([7, 12, 13, 16].includes(code)) failures.push(where);
          } else if (outcome === 'unauthenticated') {
            if (code !== 16) failures.push(where);
          } else if (code !== 7 || details !== deniedMessage(opName, call.ns)) failures.push(where);
        },
      );
    } finally {
      for (const client of clients.values()) client.close();
    }
    expect(failures).toEqual([]);
    outcomes.check();
  });
});
