import { resolve } from 'node:path';
import { Client, credentials, loadPackageDefinition, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Seeder, seedClientFixture } from '../../support/client-fixture';
import { everyoneGets, productionAndStaging } from '../../support/git-fixtures';
import { startGitRemote, type GitRemote } from '../../support/git-remote';
import { GrpcClient } from '../../support/grpc-client';
import { expectStatus, useServer, useTokenServer } from '../../support/server';
import { until } from '../../support/wait';

/**
 * flagd's evaluation protocol through a @grpc/grpc-js client built from our .proto files
 * (proto/flagd/evaluation): what the JavaScript providers do not call (v1's ResolveAll,
 * ResolveInt, ResolveFloat), the namespace metadata they cannot send, v2's presence, flagd's
 * error statuses, authentication, reflection and the call metrics.
 */

const V1 = 'flagd.evaluation.v1.Service';
const V2 = 'flagd.evaluation.v2.Service';
const struct = (json: Record<string, unknown>) => ({ fields: Object.fromEntries(Object.entries(json).map(([k, v]) => [k, typeof v === 'number' ? { numberValue: v } : { stringValue: String(v) }])) });

describe('flagd evaluation over gRPC: raw calls', () => {
  const server = useServer();
  let grpc: GrpcClient;
  beforeAll(async () => {
    await seedClientFixture(server.api);
    const s = new Seeder(server.api, 'default');
    await s.variantFlag('flag_ratio', { variants: [{ key: 'ratio', attachment: '0.25' }], rules: [{ segment: 'everyone', distributions: [['ratio', 100]] }] });
    await s.variantFlag('flag_list', { variants: [{ key: 'list', attachment: '[1,2]' }], rules: [{ segment: 'everyone', distributions: [['list', 100]] }] });
    grpc = new GrpcClient(server.service.grpcPort);
  });
  afterAll(() => grpc.close());

  it('ResolveInt and ResolveFloat: a numeric variant key, else a numeric attachment; anything else is TYPE_MISMATCH', async () => {
    for (const service of [V1, V2]) {
      const int = await grpc.call(`${service}/ResolveInt`, { flagKey: 'flag_number', context: struct({ targetingKey: 'user-1' }) });
      expect(int).toMatchObject({ value: '42', variant: '42', reason: 'TARGETING_MATCH' });
      expect(await grpc.call(`${service}/ResolveFloat`, { flagKey: 'flag_number', context: struct({ targetingKey: 'user-1' }) })).toMatchObject({ value: 42 });
      expect(await grpc.call(`${service}/ResolveFloat`, { flagKey: 'flag_ratio', context: struct({ targetingKey: 'user-1' }) })).toMatchObject({ value: 0.25, variant: 'ratio' });
      expect(await grpc.fails(`${service}/ResolveInt`, { flagKey: 'flag_ratio' })).toEqual({ code: status.INVALID_ARGUMENT, details: 'TYPE_MISMATCH' });
      expect(await grpc.fails(`${service}/ResolveFloat`, { flagKey: 'flag1', context: struct({ targetingKey: 'user-1', fizz: 'buzz' }) })).toEqual({ code: status.INVALID_ARGUMENT, details: 'TYPE_MISMATCH' });
      expect(await grpc.fails(`${service}/ResolveInt`, { flagKey: 'flag_boolean' })).toEqual({ code: status.INVALID_ARGUMENT, details: 'TYPE_MISMATCH' });
      // An attachment that is JSON but not an object cannot be a Struct.
      expect(await grpc.fails(`${service}/ResolveObject`, { flagKey: 'flag_list' })).toEqual({ code: status.INVALID_ARGUMENT, details: 'TYPE_MISMATCH' });
    }
  });

  it("v1's ResolveAll: every boolean flag and every enabled variant flag that answers, each as its own type", async () => {
    const all = await grpc.call(`${V1}/ResolveAll`, { context: struct({ targetingKey: 'user-1', fizz: 'buzz' }) });
    expect(all.flags.flag1).toMatchObject({ value: 'stringValue', stringValue: 'variant1', variant: 'variant1', reason: 'TARGETING_MATCH' });
    expect(all.flags.flag_boolean).toMatchObject({ value: 'boolValue', boolValue: true, variant: 'true', reason: 'TARGETING_MATCH' });
    expect(all.flags.flag_default_variant).toMatchObject({ stringValue: 'dv_default', reason: 'STATIC' });
    // Disabled variant flags are left out (as OFREP's bulk), and so is a flag with no variant to give.
    expect(all.flags.flag_disabled).toBeUndefined();
    expect(all.flags.flag_any).toBeUndefined();
    expect(Object.keys(all.flags).sort()).toEqual(['flag1', 'flag_boolean', 'flag_boolean_on', 'flag_default_variant', 'flag_json', 'flag_list', 'flag_number', 'flag_ratio']);
    const some = await grpc.call(`${V1}/ResolveAll`, { context: struct({ targetingKey: 'user-1', flags: 'flag_number,missing' }) });
    expect(Object.keys(some.flags)).toEqual(['flag_number']);
  });

  it('the namespace is the x-flipt-namespace metadata; default without it', async () => {
    const ns1 = { 'x-flipt-namespace': 'ns1' };
    const context = struct({ targetingKey: 'user-1', fizz: 'buzz' });
    expect((await grpc.call(`${V2}/ResolveString`, { flagKey: 'flag1', context })).value).toBe('variant1');
    expect((await grpc.call(`${V2}/ResolveString`, { flagKey: 'flag1', context }, ns1)).value).toBe('variant2');
    expect((await grpc.call(`${V1}/ResolveString`, { flagKey: 'ns1_only', context }, ns1)).value).toBe('ns1_variant');
    expect(await grpc.fails(`${V1}/ResolveString`, { flagKey: 'ns1_only', context })).toEqual({ code: status.NOT_FOUND, details: 'FLAG_NOT_FOUND' });
    expect(await grpc.fails(`${V2}/ResolveString`, { flagKey: 'flag1' }, { 'x-flipt-namespace': 'nowhere' })).toEqual({ code: status.NOT_FOUND, details: 'FLAG_NOT_FOUND' });
  });

  it("v2 leaves value and variant out where no variant answered; v1 sends its zero values", async () => {
    const context = struct({ targetingKey: 'user-1', age: 12 });
    const v2 = await grpc.call(`${V2}/ResolveString`, { flagKey: 'flag_any', context });
    expect(v2).toMatchObject({ reason: 'DEFAULT' });
    expect(v2._value).toBeUndefined();
    expect(v2._variant).toBeUndefined();
    const present = await grpc.call(`${V2}/ResolveBoolean`, { flagKey: 'flag_boolean', context: struct({ targetingKey: 'user-1' }) });
    expect(present).toMatchObject({ _value: 'value', _variant: 'variant' });
    expect(await grpc.call(`${V1}/ResolveString`, { flagKey: 'flag_any', context })).toMatchObject({ value: '', variant: '', reason: 'DEFAULT' });
    expect(await grpc.call(`${V1}/ResolveObject`, { flagKey: 'flag_disabled', context })).toMatchObject({ value: { fields: {} }, reason: 'DISABLED' });
  });

  it("flagd's error statuses: NOT_FOUND for a flag (or no key), INVALID_ARGUMENT for a type, DATA_LOSS for an unreadable message", async () => {
    expect(await grpc.fails(`${V2}/ResolveBoolean`, { flagKey: '' })).toEqual({ code: status.NOT_FOUND, details: 'FLAG_NOT_FOUND' });
    expect(await grpc.fails(`${V1}/ResolveBoolean`, { flagKey: 'flag1' })).toEqual({ code: status.INVALID_ARGUMENT, details: 'TYPE_MISMATCH' });
    const raw = new Client(`127.0.0.1:${server.service.grpcPort}`, credentials.createInsecure());
    try {
      const garbage = await new Promise<ServiceError | null>((done) =>
        raw.makeUnaryRequest(`/${V2}/ResolveString`, (b: Buffer) => b, (b: Buffer) => b, Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]), new Metadata(), { deadline: Date.now() + 10_000 }, done),
      );
      expect(garbage).toMatchObject({ code: status.DATA_LOSS, details: 'PARSE_ERROR' });
    } finally {
      raw.close();
    }
  });

  it('reflection lists both generations; each call is counted by method and code', async () => {
    const def = loadSync('grpc/reflection/v1/reflection.proto', { includeDirs: [resolve(__dirname, '../../../proto')], keepCase: false, oneofs: true, defaults: true });
    const Reflection = (loadPackageDefinition(def) as any).grpc.reflection.v1.ServerReflection;
    const client = new Reflection(`127.0.0.1:${server.service.grpcPort}`, credentials.createInsecure());
    try {
      const listed = await new Promise<any>((done, fail) => {
        const stream = client.serverReflectionInfo();
        stream.on('data', (answer: unknown) => {
          done(answer);
          stream.end();
        });
        stream.on('error', fail);
        stream.write({ listServices: '*' });
      });
      const names = listed.listServicesResponse.service.map((s: { name: string }) => s.name);
      expect(names).toEqual(expect.arrayContaining([V1, V2, 'flipt.Flipt']));
    } finally {
      client.close();
    }
    await grpc.fails(`${V2}/ResolveBoolean`, { flagKey: 'absent-for-metrics' });
    const scrape = (await server.api.get('/metrics')).text;
    expect(scrape).toMatch(/service_grpc_server_handled_total\{grpc_type="unary",grpc_service="flagd.evaluation.v2.Service",grpc_method="ResolveBoolean",grpc_code="NotFound"\} [1-9]/);
    expect(scrape).toMatch(/service_grpc_server_handled_total\{grpc_type="unary",grpc_service="flagd.evaluation.v1.Service",grpc_method="ResolveAll",grpc_code="OK"\} [1-9]/);
  });

  it('an EventStream is counted when it ends, as a server stream', async () => {
    const events = grpc.stream(`${V2}/EventStream`);
    await new Promise((done) => events.once('data', done));
    const ended = new Promise((done) => events.on('error', done));
    events.cancel();
    await ended;
    const counted = /service_grpc_server_handled_total\{grpc_type="server_stream",grpc_service="flagd.evaluation.v2.Service",grpc_method="EventStream",grpc_code="Canceled"\} [1-9]/;
    // The server hears the cancellation a moment after the client does.
    await until(async () => counted.test((await server.api.get('/metrics')).text), 'the cancelled EventStream is counted', 5000);
    expect(server.service.services.live.size).toBe(0);
  });
});

describe('flagd evaluation over gRPC: authentication', () => {
  const { server, admin } = useTokenServer('flagd-bootstrap', 'scoped-ns');
  let grpc: GrpcClient;
  beforeAll(async () => {
    expectStatus(await admin.post('/api/v1/namespaces', { key: 'scoped-ns', name: 'S' }), 200);
    for (const ns of ['default', 'scoped-ns']) {
      expectStatus(await admin.post(`/api/v1/namespaces/${ns}/flags`, { key: 'on', name: 'on', type: 'BOOLEAN_FLAG_TYPE', enabled: true }), 200);
    }
    grpc = new GrpcClient(server.service.grpcPort, 'flagd-bootstrap');
  });
  afterAll(() => grpc.close());

  it('wants the bearer token of the evaluation surface, in the authorization metadata, on resolves and EventStream', async () => {
    expect((await grpc.call(`${V2}/ResolveBoolean`, { flagKey: 'on' })).value).toBe(true);
    const anonymous = grpc.withToken(null);
    try {
      expect((await anonymous.fails(`${V2}/ResolveBoolean`, { flagKey: 'on' })).code).toBe(status.UNAUTHENTICATED);
      expect((await anonymous.fails(`${V1}/ResolveAll`, {})).code).toBe(status.UNAUTHENTICATED);
      expect((await grpc.withToken('wrong').fails(`${V1}/ResolveString`, { flagKey: 'on' })).code).toBe(status.UNAUTHENTICATED);
      const refused = await new Promise<ServiceError>((done) => anonymous.stream(`${V1}/EventStream`).on('error', done));
      expect(refused.code).toBe(status.UNAUTHENTICATED);
      expect(server.service.services.live.size).toBe(0);
    } finally {
      anonymous.close();
    }
  });

  it("honours a namespace-scoped token's namespace (the x-flipt-namespace metadata)", async () => {
    const made = expectStatus(await admin.post('/auth/v1/method/token', { name: 'flagd scoped', namespaceKey: 'scoped-ns' }), 200);
    const scoped = grpc.withToken(made.clientToken);
    try {
      expect((await scoped.call(`${V2}/ResolveBoolean`, { flagKey: 'on' }, { 'x-flipt-namespace': 'scoped-ns' })).value).toBe(true);
      expect((await scoped.fails(`${V2}/ResolveBoolean`, { flagKey: 'on' })).code).toBe(status.UNAUTHENTICATED);
      const refused = await new Promise<ServiceError>((done) => scoped.stream(`${V2}/EventStream`).on('error', done));
      expect(refused.code).toBe(status.UNAUTHENTICATED);
    } finally {
      scoped.close();
    }
  });
});

describe('flagd evaluation over gRPC: authentication.exclude.evaluation', () => {
  const server = useServer({ PENNON_AUTHENTICATION_REQUIRED: 'true', PENNON_AUTHENTICATION_METHODS_TOKEN_ENABLED: 'true', PENNON_AUTHENTICATION_EXCLUDE_EVALUATION: 'true' });

  it('opens the flagd services to calls without a token, as /evaluate/v1', async () => {
    const grpc = new GrpcClient(server.service.grpcPort);
    try {
      expect(await grpc.fails(`${V2}/ResolveBoolean`, { flagKey: 'missing' })).toEqual({ code: status.NOT_FOUND, details: 'FLAG_NOT_FOUND' });
      expect((await grpc.fails('flipt.Flipt/ListFlags', {})).code).toBe(status.UNAUTHENTICATED);
    } finally {
      grpc.close();
    }
  });
});

describe('flagd evaluation over gRPC: Git environments', () => {
  let remote: GitRemote;
  beforeAll(async () => {
    remote = await startGitRemote();
    remote.commit({ 'prod/shop/features.yaml': everyoneGets('shop', 'prod-blue'), 'staging/shop/features.yaml': everyoneGets('shop', 'staging-red') });
  });
  afterAll(async () => {
    await remote?.close();
  });
  const server = useServer(() => productionAndStaging(remote.url));

  it('x-flipt-environment picks the environment for resolves and EventStream, as on HTTP', async () => {
    const grpc = new GrpcClient(server.service.grpcPort);
    const shop = { 'x-flipt-namespace': 'shop' };
    const staging = { ...shop, 'x-flipt-environment': 'staging' };
    try {
      expect((await grpc.call(`${V2}/ResolveString`, { flagKey: 'colour' }, shop)).value).toBe('prod-blue');
      expect((await grpc.call(`${V1}/ResolveString`, { flagKey: 'colour' }, staging)).value).toBe('staging-red');
      expect(await grpc.fails(`${V2}/ResolveString`, { flagKey: 'colour' }, { ...shop, 'x-flipt-environment': 'nowhere' })).toEqual({ code: status.NOT_FOUND, details: 'environment "nowhere" not found' });

      const events = grpc.stream(`${V2}/EventStream`, {}, staging);
      const seen: { type: string; data?: any }[] = [];
      const change = new Promise<{ data?: any }>((done) =>
        events.on('data', (event: { type: string; data?: any }) => {
          seen.push(event);
          if (event.type === 'configuration_change') done(event);
        }),
      );
      await until(() => seen.length > 0, 'provider_ready');
      remote.commit({ 'staging/shop/features.yaml': everyoneGets('shop', 'staging-green') });
      await server.service.environments!.repositories.get('flags')!.requestSync();
      const { data } = await change;
      expect(data.fields.flags.structValue.fields.colour.structValue.fields.type.stringValue).toBe('update');
      expect((await grpc.call(`${V1}/ResolveString`, { flagKey: 'colour' }, staging)).value).toBe('staging-green');
      const cancelled = new Promise<ServiceError>((done) => events.on('error', done));
      events.cancel();
      expect((await cancelled).code).toBe(status.CANCELLED);
    } finally {
      grpc.close();
    }
  });
});
