import { resolve } from 'node:path';
import { credentials, loadPackageDefinition, status } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GrpcClient } from '../../support/grpc-client';
import { expectStatus, useServer, useTokenServer } from '../../support/server';

/**
 * Flipt's gRPC API on server.grpc_port, through a @grpc/grpc-js client built from the project's
 * .proto files as Flipt's SDKs build theirs: every service's methods, their answers' shapes,
 * errors with Flipt's codes and HTTP's messages, authentication by metadata, gzip, reflection
 * and the call metrics. The same answers as HTTP's, operation by operation, are in
 * differential.test.ts.
 */

const iso = (ts: { seconds: string; nanos: number }) => new Date(Number(ts.seconds) * 1000 + ts.nanos / 1e6).toISOString();

describe('gRPC API: management, evaluation, OFREP, metadata', () => {
  const server = useServer();
  let grpc: GrpcClient;
  beforeAll(() => {
    grpc = new GrpcClient(server.service.grpcPort);
  });
  afterAll(() => grpc.close());

  it("a write over gRPC is in the audit trail as gRPC's, with the call's request id", async () => {
    await grpc.call('flipt.Flipt/CreateFlag', { namespaceKey: 'default', key: 'audited', name: 'Audited' }, { 'x-request-id': 'grpc-call-1' });
    await grpc.call('flipt.Flipt/DeleteFlag', { namespaceKey: 'default', key: 'audited' });
    const [deleted, event] = expectStatus(await server.api.get('/api/v1/namespaces/default/audit/events?key=audited'), 200).events;
    expect(deleted).toMatchObject({ action: 'deleted', source: 'grpc', before: { key: 'audited' } });
    expect(event).toMatchObject({ type: 'flag', action: 'created', key: 'audited', source: 'grpc', requestId: 'grpc-call-1', metadata: { actor: { authentication: 'none' } } });
  });

  it('namespaces, flags, variants, segments, constraints, rules, distributions and their orders, then deletes', async () => {
    const ns = await grpc.call('flipt.Flipt/CreateNamespace', { key: 'team', name: 'Team', description: 'd' });
    expect(ns).toMatchObject({ key: 'team', name: 'Team', description: 'd', protected: false });
    const http = expectStatus(await server.api.get('/api/v1/namespaces/team'), 200);
    expect(iso(ns.createdAt)).toBe(new Date(http.createdAt).toISOString());
    expect((await grpc.call('flipt.Flipt/UpdateNamespace', { key: 'team', name: 'Team 2' })).name).toBe('Team 2');
    expect((await grpc.call('flipt.Flipt/GetNamespace', { key: 'team' })).name).toBe('Team 2');
    expect((await grpc.call('flipt.Flipt/ListNamespaces', {})).namespaces.map((n: { key: string }) => n.key)).toEqual(['default', 'team']);

    const flag = await grpc.call('flipt.Flipt/CreateFlag', {
      namespaceKey: 'team',
      key: 'color',
      name: 'Color',
      enabled: true,
      metadata: { fields: { owner: { stringValue: 'web' }, weight: { numberValue: 2 } } },
    });
    expect(flag).toMatchObject({ key: 'color', namespaceKey: 'team', type: 'VARIANT_FLAG_TYPE', enabled: true });
    expect(flag.metadata.fields.owner.stringValue).toBe('web');
    expect(expectStatus(await server.api.get('/api/v1/namespaces/team/flags/color'), 200).metadata).toEqual({ owner: 'web', weight: 2 });

    const blue = await grpc.call('flipt.Flipt/CreateVariant', { namespaceKey: 'team', flagKey: 'color', key: 'blue', attachment: '{"hex":"#00f"}' });
    const red = await grpc.call('flipt.Flipt/CreateVariant', { namespaceKey: 'team', flagKey: 'color', key: 'red' });
    expect((await grpc.call('flipt.Flipt/UpdateVariant', { namespaceKey: 'team', flagKey: 'color', id: red.id, key: 'red', name: 'Red' })).name).toBe('Red');
    const updated = await grpc.call('flipt.Flipt/UpdateFlag', { namespaceKey: 'team', key: 'color', name: 'Colour', enabled: true, defaultVariantId: blue.id });
    expect(updated.defaultVariant.key).toBe('blue');

    await grpc.call('flipt.Flipt/CreateSegment', { namespaceKey: 'team', key: 'beta', name: 'Beta', matchType: 'ANY_MATCH_TYPE' });
    const constraint = await grpc.call('flipt.Flipt/CreateConstraint', {
      namespaceKey: 'team',
      segmentKey: 'beta',
      type: 'STRING_COMPARISON_TYPE',
      property: 'plan',
      operator: 'eq',
      value: 'pro',
    });
    await grpc.call('flipt.Flipt/UpdateConstraint', { namespaceKey: 'team', segmentKey: 'beta', id: constraint.id, type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'neq', value: 'free' });
    await grpc.call('flipt.Flipt/CreateSegment', { namespaceKey: 'team', key: 'all', name: 'All', matchType: 'ALL_MATCH_TYPE' });
    const segment = await grpc.call('flipt.Flipt/GetSegment', { namespaceKey: 'team', key: 'beta' });
    expect(segment.constraints.map((c: { operator: string }) => c.operator)).toEqual(['neq']);
    expect((await grpc.call('flipt.Flipt/UpdateSegment', { namespaceKey: 'team', key: 'beta', name: 'Beta!', matchType: 'ANY_MATCH_TYPE' })).name).toBe('Beta!');
    expect((await grpc.call('flipt.Flipt/ListSegments', { namespaceKey: 'team' })).totalCount).toBe(2);

    const r1 = await grpc.call('flipt.Flipt/CreateRule', { namespaceKey: 'team', flagKey: 'color', segmentKeys: ['beta'], rank: 1 });
    const r2 = await grpc.call('flipt.Flipt/CreateRule', { namespaceKey: 'team', flagKey: 'color', segmentKeys: ['beta', 'all'], segmentOperator: 'AND_SEGMENT_OPERATOR', rank: 2 });
    expect(r2).toMatchObject({ segmentKeys: ['beta', 'all'], segmentOperator: 'AND_SEGMENT_OPERATOR', rank: 2 });
    const d = await grpc.call('flipt.Flipt/CreateDistribution', { namespaceKey: 'team', flagKey: 'color', ruleId: r1.id, variantId: blue.id, rollout: 60 });
    expect(d).toMatchObject({ ruleId: r1.id, variantId: blue.id, rollout: 60 });
    expect((await grpc.call('flipt.Flipt/UpdateDistribution', { namespaceKey: 'team', flagKey: 'color', ruleId: r1.id, id: d.id, variantId: red.id, rollout: 100 })).variantId).toBe(red.id);
    await grpc.call('flipt.Flipt/UpdateRule', { namespaceKey: 'team', flagKey: 'color', id: r2.id, segmentKeys: ['all'] });
    await grpc.call('flipt.Flipt/OrderRules', { namespaceKey: 'team', flagKey: 'color', ruleIds: [r2.id, r1.id] });
    const rules = await grpc.call('flipt.Flipt/ListRules', { namespaceKey: 'team', flagKey: 'color' });
    expect(rules.rules.map((r: { id: string }) => r.id)).toEqual([r2.id, r1.id]);
    expect((await grpc.call('flipt.Flipt/GetRule', { namespaceKey: 'team', flagKey: 'color', id: r1.id })).distributions[0].rollout).toBe(100);

    const flags = await grpc.call('flipt.Flipt/ListFlags', { namespaceKey: 'team', limit: 10 });
    expect(flags).toMatchObject({ totalCount: 1, nextPageToken: '' });
    expect((await grpc.call('flipt.Flipt/GetFlag', { namespaceKey: 'team', key: 'color' })).variants.map((v: { key: string }) => v.key)).toEqual(['blue', 'red']);

    await grpc.call('flipt.Flipt/DeleteDistribution', { namespaceKey: 'team', flagKey: 'color', ruleId: r1.id, id: d.id, variantId: red.id });
    await grpc.call('flipt.Flipt/DeleteRule', { namespaceKey: 'team', flagKey: 'color', id: r2.id });
    await grpc.call('flipt.Flipt/DeleteConstraint', { namespaceKey: 'team', segmentKey: 'beta', id: constraint.id });
    await grpc.call('flipt.Flipt/DeleteVariant', { namespaceKey: 'team', flagKey: 'color', id: red.id });
    expect(await grpc.call('flipt.Flipt/DeleteFlag', { namespaceKey: 'team', key: 'color' })).toEqual({});
    await grpc.call('flipt.Flipt/DeleteSegment', { namespaceKey: 'team', key: 'beta' });
    expect((await grpc.fails('flipt.Flipt/GetFlag', { namespaceKey: 'team', key: 'color' })).code).toBe(status.NOT_FOUND);
    await grpc.call('flipt.Flipt/DeleteNamespace', { key: 'team', force: true });
    expect((await grpc.call('flipt.Flipt/ListNamespaces', {})).totalCount).toBe(1);
  });

  it('boolean flags and rollouts, their order; evaluation over both APIs and the legacy one; the snapshot', async () => {
    await grpc.call('flipt.Flipt/CreateFlag', { key: 'dark', name: 'Dark', type: 'BOOLEAN_FLAG_TYPE', enabled: false });
    await grpc.call('flipt.Flipt/CreateSegment', { key: 'staff', name: 'Staff', matchType: 'ALL_MATCH_TYPE' });
    await grpc.call('flipt.Flipt/CreateConstraint', { segmentKey: 'staff', type: 'BOOLEAN_COMPARISON_TYPE', property: 'staff', operator: 'true' });
    const seg = await grpc.call('flipt.Flipt/CreateRollout', { namespaceKey: 'default', flagKey: 'dark', rank: 1, segment: { segmentKeys: ['staff'], value: true } });
    const thr = await grpc.call('flipt.Flipt/CreateRollout', { namespaceKey: 'default', flagKey: 'dark', rank: 2, threshold: { percentage: 50, value: true } });
    expect(seg).toMatchObject({ type: 'SEGMENT_ROLLOUT_TYPE', rule: 'segment', segment: { segmentKey: 'staff', value: true } });
    // One segment reads back as `segmentKey`, as over HTTP (and in Flipt).
    expect(expectStatus(await server.api.get(`/api/v1/namespaces/default/flags/dark/rollouts/${seg.id}`), 200).segment).toMatchObject({ segmentKey: 'staff', value: true });
    expect(thr).toMatchObject({ type: 'THRESHOLD_ROLLOUT_TYPE', rule: 'threshold', threshold: { percentage: 50, value: true } });
    await grpc.call('flipt.Flipt/UpdateRollout', { namespaceKey: 'default', flagKey: 'dark', id: thr.id, threshold: { percentage: 100, value: false } });
    await grpc.call('flipt.Flipt/OrderRollouts', { namespaceKey: 'default', flagKey: 'dark', rolloutIds: [thr.id, seg.id] });
    const list = await grpc.call('flipt.Flipt/ListRollouts', { namespaceKey: 'default', flagKey: 'dark' });
    expect(list.rules.map((r: { id: string }) => r.id)).toEqual([thr.id, seg.id]);
    expect((await grpc.call('flipt.Flipt/GetRollout', { namespaceKey: 'default', flagKey: 'dark', id: seg.id })).rank).toBe(2);
    await grpc.call('flipt.Flipt/UpdateFlag', { key: 'dark', name: 'Dark', enabled: true });

    const boolean = await grpc.call('flipt.evaluation.EvaluationService/Boolean', { namespaceKey: 'default', flagKey: 'dark', entityId: 'u1', context: { staff: 'true' }, requestId: 'r-1' });
    expect(boolean).toMatchObject({ enabled: false, reason: 'MATCH_EVALUATION_REASON', flagKey: 'dark', requestId: 'r-1' });
    const viaHttp = expectStatus(await server.api.post('/evaluate/v1/boolean', { namespaceKey: 'default', flagKey: 'dark', entityId: 'u1', context: { staff: 'true' } }), 200);
    expect(boolean.enabled).toBe(viaHttp.enabled);

    await grpc.call('flipt.Flipt/CreateFlag', { key: 'size', name: 'Size', enabled: true });
    const small = await grpc.call('flipt.Flipt/CreateVariant', { flagKey: 'size', key: 'small', attachment: '{"px":10}' });
    const rule = await grpc.call('flipt.Flipt/CreateRule', { flagKey: 'size', segmentKeys: ['staff'], rank: 1 });
    await grpc.call('flipt.Flipt/CreateDistribution', { flagKey: 'size', ruleId: rule.id, variantId: small.id, rollout: 100 });
    const variant = await grpc.call('flipt.evaluation.EvaluationService/Variant', { flagKey: 'size', entityId: 'u1', context: { staff: 'true' } });
    expect(variant).toMatchObject({ match: true, variantKey: 'small', variantAttachment: '{"px":10}', segmentKeys: ['staff'], reason: 'MATCH_EVALUATION_REASON' });
    expect(variant.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(Number(variant.timestamp.seconds)).toBeGreaterThan(1_700_000_000);

    const batch = await grpc.call('flipt.evaluation.EvaluationService/Batch', {
      requests: [
        { flagKey: 'size', entityId: 'u1', context: { staff: 'true' } },
        { flagKey: 'dark', entityId: 'u1', context: {} },
        { flagKey: 'missing', entityId: 'u1', context: {} },
      ],
    });
    expect(batch.responses.map((r: { type: string }) => r.type)).toEqual(['VARIANT_EVALUATION_RESPONSE_TYPE', 'BOOLEAN_EVALUATION_RESPONSE_TYPE', 'ERROR_EVALUATION_RESPONSE_TYPE']);
    expect(batch.responses[0].response).toBe('variantResponse');
    expect(batch.responses[2].errorResponse).toMatchObject({ flagKey: 'missing', reason: 'NOT_FOUND_ERROR_EVALUATION_REASON' });

    const legacy = await grpc.call('flipt.Flipt/Evaluate', { flagKey: 'size', entityId: 'u1', context: { staff: 'true' } });
    expect(legacy).toMatchObject({ match: true, value: 'small', segmentKey: 'staff', reason: 'MATCH_EVALUATION_REASON', requestContext: { staff: 'true' } });
    const legacyBatch = await grpc.call('flipt.Flipt/BatchEvaluate', { requests: [{ flagKey: 'size', entityId: 'u2', context: {} }, { flagKey: 'nope', entityId: 'x' }], excludeNotFound: true });
    expect(legacyBatch.responses).toHaveLength(1);

    const snapshot = await grpc.call('flipt.evaluation.DataService/EvaluationSnapshotNamespace', { key: 'default' });
    expect(snapshot.namespace.key).toBe('default');
    const size = snapshot.flags.find((f: { key: string }) => f.key === 'size');
    expect(size.rules[0].distributions[0]).toMatchObject({ variantKey: 'small', rollout: 100 });
    const dark = snapshot.flags.find((f: { key: string }) => f.key === 'dark');
    expect(dark.rollouts.map((r: { type: string }) => r.type)).toEqual(['THRESHOLD_ROLLOUT_TYPE', 'SEGMENT_ROLLOUT_TYPE']);
  });

  it('errors carry Flipt’s codes and HTTP’s messages', async () => {
    const missing = await grpc.fails('flipt.Flipt/GetFlag', { key: 'nope' });
    const httpMissing = expectStatus(await server.api.get('/api/v1/flags/nope'), 404);
    expect(missing).toEqual({ code: status.NOT_FOUND, details: httpMissing.message });
    expect(httpMissing.code).toBe(status.NOT_FOUND);

    const empty = await grpc.fails('flipt.Flipt/CreateFlag', { key: '', name: 'x' });
    const httpEmpty = expectStatus(await server.api.post('/api/v1/flags', { key: '', name: 'x' }), 400);
    expect(empty).toEqual({ code: status.INVALID_ARGUMENT, details: httpEmpty.message });

    await grpc.call('flipt.Flipt/CreateFlag', { key: 'taken', name: 'T' });
    expect((await grpc.fails('flipt.Flipt/CreateFlag', { key: 'taken', name: 'T' })).code).toBe(status.INVALID_ARGUMENT);
    const unknownEnum = await grpc.fails('flipt.Flipt/CreateSegment', { key: 's9', name: 'S', matchType: 7 });
    expect(unknownEnum.code).toBe(status.INVALID_ARGUMENT);
    expect(unknownEnum.details).toContain('matchType');
    // Services of sign-in methods Pennon does not serve: UNIMPLEMENTED, as from Flipt with them off.
    expect((await grpc.fails('flipt.auth.AuthenticationMethodOIDCService/AuthorizeURL', { provider: 'google' })).code).toBe(status.UNIMPLEMENTED);
  });

  it('OFREP by the x-flipt-namespace metadata, and the metadata documents', async () => {
    await grpc.call('flipt.Flipt/CreateNamespace', { key: 'o', name: 'O' });
    await grpc.call('flipt.Flipt/CreateFlag', { namespaceKey: 'o', key: 'on', name: 'On', type: 'BOOLEAN_FLAG_TYPE', enabled: true });
    const config = await grpc.call('flipt.ofrep.OFREPService/GetProviderConfiguration', {});
    expect(config).toMatchObject({ name: 'flipt', capabilities: { flagEvaluation: { supportedTypes: ['string', 'boolean'] } } });
    const one = await grpc.call('flipt.ofrep.OFREPService/EvaluateFlag', { key: 'on', context: { targetingKey: 'u' } }, { 'x-flipt-namespace': 'o' });
    expect(one).toMatchObject({ key: 'on', reason: 'DEFAULT', variant: 'true', value: { boolValue: true } });
    const bulk = await grpc.call('flipt.ofrep.OFREPService/EvaluateBulk', { context: { targetingKey: 'u' } }, { 'x-flipt-namespace': 'o' });
    expect(bulk.flags.map((f: { key: string }) => f.key)).toEqual(['on']);
    expect((await grpc.fails('flipt.ofrep.OFREPService/EvaluateFlag', { key: 'on', context: { targetingKey: 'u' } })).code).toBe(status.NOT_FOUND);

    const info = await grpc.call('flipt.meta.MetadataService/GetInfo', {});
    expect(info.contentType).toBe('application/json');
    expect(JSON.parse(Buffer.from(info.data).toString())).toEqual(expectStatus(await server.api.get('/meta/info'), 200));
    const shown = await grpc.call('flipt.meta.MetadataService/GetConfiguration', {});
    expect(JSON.parse(Buffer.from(shown.data).toString())).toEqual(expectStatus(await server.api.get('/meta/config'), 200));
  });

  it('accepts gzip-compressed calls, and counts every call by method and code in /metrics', async () => {
    const gzip = new GrpcClient(server.service.grpcPort, null, { 'grpc.default_compression_algorithm': 2 });
    try {
      const long = 'x'.repeat(5000);
      expect((await gzip.call('flipt.Flipt/CreateFlag', { key: 'zipped', name: 'Z', description: long })).description).toBe(long);
    } finally {
      gzip.close();
    }
    await grpc.fails('flipt.Flipt/GetFlag', { key: 'absent-for-metrics' });
    const scrape = (await server.api.get('/metrics')).text;
    expect(scrape).toMatch(/service_grpc_server_handled_total\{grpc_type="unary",grpc_service="flipt.Flipt",grpc_method="GetFlag",grpc_code="NotFound"\} [1-9]/);
    expect(scrape).toMatch(/service_grpc_server_handling_seconds_count\{grpc_type="unary",grpc_service="flipt.Flipt",grpc_method="CreateFlag",grpc_code="OK"\} [1-9]/);
  });

  it('serves reflection: the services, and the file that defines a symbol', async () => {
    const def = loadSync('grpc/reflection/v1/reflection.proto', { includeDirs: [resolve(__dirname, '../../../proto')], keepCase: false, oneofs: true, defaults: true });
    const Reflection = (loadPackageDefinition(def) as any).grpc.reflection.v1.ServerReflection;
    const client = new Reflection(`127.0.0.1:${server.service.grpcPort}`, credentials.createInsecure());
    try {
      const ask = (request: object) =>
        new Promise<any>((done, fail) => {
          const stream = client.serverReflectionInfo();
          stream.on('data', (answer: unknown) => {
            done(answer);
            stream.end();
          });
          stream.on('error', fail);
          stream.write(request);
        });
      const listed = await ask({ listServices: '*' });
      const names = listed.listServicesResponse.service.map((s: { name: string }) => s.name);
      for (const name of ['flipt.Flipt', 'flipt.evaluation.EvaluationService', 'flipt.evaluation.DataService', 'flipt.auth.AuthenticationService', 'flipt.ofrep.OFREPService', 'grpc.health.v1.Health']) {
        expect(names).toContain(name);
      }
      const file = await ask({ fileContainingSymbol: 'flipt.evaluation.EvaluationService' });
      const protos = file.fileDescriptorResponse.fileDescriptorProto as Buffer[];
      expect(protos.length).toBeGreaterThan(0);
      expect(Buffer.concat(protos).toString('latin1')).toContain('VariantEvaluationResponse');
    } finally {
      client.close();
    }
  });
});

describe('gRPC API: authentication by metadata, as over HTTP', () => {
  const { server } = useTokenServer('grpc-bootstrap', 'scoped-ns');
  let admin: GrpcClient;
  beforeAll(() => {
    admin = new GrpcClient(server.service.grpcPort, 'grpc-bootstrap');
  });
  afterAll(() => admin.close());

  it('no token or a wrong one: UNAUTHENTICATED; health needs none; tokens created, listed, read, expired and deleted over gRPC', async () => {
    const anonymous = admin.withToken(null);
    const refused = await anonymous.fails('flipt.Flipt/ListFlags', {});
    expect(refused.code).toBe(status.UNAUTHENTICATED);
    expect(refused.details).toBe(expectStatus(await server.api.get('/api/v1/flags'), 401).message);
    expect((await admin.withToken('wrong').fails('flipt.evaluation.EvaluationService/Variant', { flagKey: 'f', entityId: 'e' })).code).toBe(status.UNAUTHENTICATED);
    // Listing sign-in methods is public.
    expect((await anonymous.call('flipt.auth.PublicAuthenticationService/ListAuthenticationMethods', {})).methods[0]).toMatchObject({ method: 'METHOD_TOKEN', enabled: true });

    const created = await admin.call('flipt.auth.AuthenticationMethodTokenService/CreateToken', { name: 'ci', description: 'd', metadata: { team: 'a' } });
    expect(created.clientToken).toMatch(/\S{20,}/);
    expect(created.authentication).toMatchObject({ method: 'METHOD_TOKEN', metadata: { 'io.flipt.auth.token.name': 'ci', team: 'a' } });
    const ci = admin.withToken(created.clientToken);
    expect((await ci.call('flipt.auth.AuthenticationService/GetAuthenticationSelf', {})).id).toBe(created.authentication.id);
    expect((await admin.call('flipt.auth.AuthenticationService/GetAuthentication', { id: created.authentication.id })).id).toBe(created.authentication.id);
    const listed = await admin.call('flipt.auth.AuthenticationService/ListAuthentications', { method: 'METHOD_TOKEN' });
    expect(listed.authentications.map((a: { id: string }) => a.id)).toContain(created.authentication.id);
    await ci.call('flipt.auth.AuthenticationService/ExpireAuthenticationSelf', {});
    expect((await ci.fails('flipt.Flipt/ListFlags', {})).code).toBe(status.UNAUTHENTICATED);

    const other = await admin.call('flipt.auth.AuthenticationMethodTokenService/CreateToken', { name: 'tmp', expiresAt: { seconds: String(Math.floor(Date.now() / 1000) + 3600), nanos: 0 } });
    expect(Number(other.authentication.expiresAt.seconds)).toBeGreaterThan(Date.now() / 1000);
    await admin.call('flipt.auth.AuthenticationService/DeleteAuthentication', { id: other.authentication.id });
    expect((await admin.fails('flipt.auth.AuthenticationService/GetAuthentication', { id: other.authentication.id })).code).toBe(status.NOT_FOUND);
  });

  it('a namespace-scoped token acts on its own namespace only, and not on the token API', async () => {
    await admin.call('flipt.Flipt/CreateNamespace', { key: 'scoped-ns', name: 'S' }).catch(() => undefined);
    await admin.call('flipt.Flipt/CreateFlag', { namespaceKey: 'scoped-ns', key: 'mine', name: 'M' });
    const made = await admin.call('flipt.auth.AuthenticationMethodTokenService/CreateToken', { name: 'grpc scoped', namespaceKey: 'scoped-ns' });
    const scoped = admin.withToken(made.clientToken);
    expect((await scoped.call('flipt.Flipt/GetFlag', { namespaceKey: 'scoped-ns', key: 'mine' })).key).toBe('mine');
    expect((await scoped.call('flipt.evaluation.EvaluationService/Variant', { namespaceKey: 'scoped-ns', flagKey: 'mine', entityId: 'e' })).flagKey).toBe('mine');
    expect((await scoped.fails('flipt.Flipt/ListFlags', { namespaceKey: 'default' })).code).toBe(status.UNAUTHENTICATED);
    expect((await scoped.fails('flipt.evaluation.EvaluationService/Variant', { flagKey: 'mine', entityId: 'e' })).code).toBe(status.UNAUTHENTICATED);
    expect((await scoped.fails('flipt.auth.AuthenticationService/ListAuthentications', {})).code).toBe(status.UNAUTHENTICATED);
  });
});
