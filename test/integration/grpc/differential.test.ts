import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OPERATIONS, routesOf, type OperationName } from '../../../internal/wire/routes';
import { GrpcClient } from '../../support/grpc-client';
import { useServer } from '../../support/server';

/**
 * The same operations over HTTP and over gRPC, each on a fresh server of its own: every answer
 * — objects, evaluations, lists, snapshots, errors with their codes and messages — must be the
 * same. HTTP goes through Family B's paths (the namespace in the path), gRPC through the
 * messages' fields; ids and times differ between the two databases, so they are compared by
 * the order in which they first appear; fields at their zero value are left out on both sides,
 * as protojson may emit them or not.
 */

type Json = Record<string, any>;
/** One step: the operation, and its message given the ids this side has seen so far (by label). */
interface Step {
  name: OperationName;
  label?: string;
  message(ids: (label: string) => string): Json;
  /** Sent as gRPC metadata and HTTP headers. */
  headers?: Record<string, string>;
}

function steps(): Step[] {
  const out: Step[] = [];
  const add = (name: OperationName, message: Json | ((ids: (label: string) => string) => Json), label?: string, headers?: Record<string, string>) =>
    out.push({ name, label, message: typeof message === 'function' ? (message as Step['message']) : () => message, headers });
  // A fixed pseudo-random sequence: the same steps every run.
  let seed = 7;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };

  add('CreateNamespace', { key: 'team', name: 'Team', description: 'the team' });
  add('CreateNamespace', { key: 'team', name: 'Again' }); // exists: an error
  add('CreateNamespace', { key: '', name: 'No key' });
  const namespaces = ['default', 'team'];
  const segments = ['beta', 'pro', 'eu', 'staff'];
  for (const ns of namespaces) {
    add('CreateSegment', { namespaceKey: ns, key: 'beta', name: 'Beta', matchType: 'ANY_MATCH_TYPE' });
    add('CreateConstraint', { namespaceKey: ns, segmentKey: 'beta', type: 'STRING_COMPARISON_TYPE', property: 'tier', operator: 'eq', value: 'beta' }, `${ns}:c:beta`);
    add('CreateSegment', { namespaceKey: ns, key: 'pro', name: 'Pro', matchType: 'ALL_MATCH_TYPE' });
    add('CreateConstraint', { namespaceKey: ns, segmentKey: 'pro', type: 'NUMBER_COMPARISON_TYPE', property: 'seats', operator: 'gte', value: '10' });
    add('CreateConstraint', { namespaceKey: ns, segmentKey: 'pro', type: 'DATETIME_COMPARISON_TYPE', property: 'since', operator: 'lt', value: '2030-01-01T00:00:00Z' });
    add('CreateSegment', { namespaceKey: ns, key: 'eu', name: 'EU', matchType: 'ANY_MATCH_TYPE' });
    add('CreateConstraint', { namespaceKey: ns, segmentKey: 'eu', type: 'STRING_COMPARISON_TYPE', property: 'country', operator: 'isoneof', value: '["fr","de"]' });
    add('CreateSegment', { namespaceKey: ns, key: 'staff', name: 'Staff', matchType: 'ALL_MATCH_TYPE' });
    add('CreateConstraint', { namespaceKey: ns, segmentKey: 'staff', type: 'BOOLEAN_COMPARISON_TYPE', property: 'staff', operator: 'true' });
    add('CreateConstraint', { namespaceKey: ns, segmentKey: 'staff', type: 'BOOLEAN_COMPARISON_TYPE', property: 'staff', operator: 'nope' }); // invalid operator
    add('CreateConstraint', { namespaceKey: ns, segmentKey: 'missing', type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'x' });

    for (let i = 0; i < 6; i++) {
      const key = `f${i}`;
      const boolean = i % 3 === 2;
      add('CreateFlag', {
        namespaceKey: ns,
        key,
        name: `Flag ${i}`,
        description: i % 2 ? 'odd' : '',
        enabled: i !== 4,
        type: boolean ? 'BOOLEAN_FLAG_TYPE' : 'VARIANT_FLAG_TYPE',
        ...(i === 1 && { metadata: { owner: 'web', weight: 3, beta: true, tags: ['a', 'b'], nested: { x: null } } }),
      });
      if (boolean) {
        add('CreateRollout', { namespaceKey: ns, flagKey: key, rank: 1, segment: { segmentKeys: [segments[rand(4)]], value: true } }, `${ns}:${key}:ro1`);
        add('CreateRollout', { namespaceKey: ns, flagKey: key, rank: 2, threshold: { percentage: 10 + rand(80), value: rand(2) === 1 } }, `${ns}:${key}:ro2`);
        add('CreateRollout', { namespaceKey: ns, flagKey: key, rank: 3, segment: { segmentKeys: ['beta', 'pro'], segmentOperator: 'AND_SEGMENT_OPERATOR', value: false } }, `${ns}:${key}:ro3`);
        add('UpdateRollout', (ids) => ({ namespaceKey: ns, flagKey: key, id: ids(`${ns}:${key}:ro2`), threshold: { percentage: 55.5, value: true } }));
        add('OrderRollouts', (ids) => ({ namespaceKey: ns, flagKey: key, rolloutIds: [ids(`${ns}:${key}:ro3`), ids(`${ns}:${key}:ro1`), ids(`${ns}:${key}:ro2`)] }));
        add('ListRollouts', { namespaceKey: ns, flagKey: key });
        add('GetRollout', (ids) => ({ namespaceKey: ns, flagKey: key, id: ids(`${ns}:${key}:ro1`) }));
        add('CreateRollout', { namespaceKey: ns, flagKey: key, rank: 4, threshold: { percentage: 120, value: true } }); // over 100
        continue;
      }
      for (const v of ['a', 'b', 'c']) add('CreateVariant', { namespaceKey: ns, flagKey: key, key: v, name: v.toUpperCase(), attachment: v === 'b' ? '{"size":2}' : '' }, `${ns}:${key}:${v}`);
      add('CreateVariant', { namespaceKey: ns, flagKey: key, key: 'a' }); // duplicate key
      add('CreateVariant', { namespaceKey: ns, flagKey: key, key: 'd', attachment: '{not json' });
      add('CreateRule', { namespaceKey: ns, flagKey: key, segmentKeys: [segments[rand(4)]], rank: 1 }, `${ns}:${key}:r1`);
      add('CreateRule', { namespaceKey: ns, flagKey: key, segmentKeys: ['eu', 'staff'], segmentOperator: 'OR_SEGMENT_OPERATOR', rank: 2 }, `${ns}:${key}:r2`);
      const split = 20 + rand(60);
      add('CreateDistribution', (ids) => ({ namespaceKey: ns, flagKey: key, ruleId: ids(`${ns}:${key}:r1`), variantId: ids(`${ns}:${key}:a`), rollout: split }), `${ns}:${key}:d1`);
      add('CreateDistribution', (ids) => ({ namespaceKey: ns, flagKey: key, ruleId: ids(`${ns}:${key}:r1`), variantId: ids(`${ns}:${key}:b`), rollout: 100 - split }));
      add('CreateDistribution', (ids) => ({ namespaceKey: ns, flagKey: key, ruleId: ids(`${ns}:${key}:r2`), variantId: ids(`${ns}:${key}:c`), rollout: 100 }));
      add('CreateDistribution', (ids) => ({ namespaceKey: ns, flagKey: key, ruleId: ids(`${ns}:${key}:r2`), variantId: ids(`${ns}:${key}:c`), rollout: 150 })); // over 100
      add('UpdateDistribution', (ids) => ({ namespaceKey: ns, flagKey: key, ruleId: ids(`${ns}:${key}:r1`), id: ids(`${ns}:${key}:d1`), variantId: ids(`${ns}:${key}:a`), rollout: split - 5 }));
      if (i === 0) {
        add('OrderRules', (ids) => ({ namespaceKey: ns, flagKey: key, ruleIds: [ids(`${ns}:${key}:r2`), ids(`${ns}:${key}:r1`)] }));
        add('UpdateRule', (ids) => ({ namespaceKey: ns, flagKey: key, id: ids(`${ns}:${key}:r2`), segmentKeys: ['eu'] }));
        add('UpdateFlag', (ids) => ({ namespaceKey: ns, key, name: 'Flag zero', enabled: true, defaultVariantId: ids(`${ns}:${key}:c`) }));
        add('UpdateVariant', (ids) => ({ namespaceKey: ns, flagKey: key, id: ids(`${ns}:${key}:b`), key: 'b', name: 'Bee', description: 'renamed' }));
      }
      add('ListRules', { namespaceKey: ns, flagKey: key });
      add('GetRule', (ids) => ({ namespaceKey: ns, flagKey: key, id: ids(`${ns}:${key}:r1`) }));
    }
    add('UpdateSegment', { namespaceKey: ns, key: 'eu', name: 'Europe', description: 'EU', matchType: 'ALL_MATCH_TYPE' });
    add('UpdateConstraint', (ids) => ({ namespaceKey: ns, segmentKey: 'beta', id: ids(`${ns}:c:beta`), type: 'STRING_COMPARISON_TYPE', property: 'tier', operator: 'prefix', value: 'be' }));
    add('GetSegment', { namespaceKey: ns, key: 'pro' });
    add('ListSegments', { namespaceKey: ns });
    add('ListFlags', { namespaceKey: ns });
    add('GetFlag', { namespaceKey: ns, key: 'f0' });
    add('GetFlag', { namespaceKey: ns, key: 'nope' });

    const contexts = [{}, { tier: 'beta' }, { seats: '12', since: '2025-01-01T00:00:00Z' }, { country: 'fr' }, { staff: 'true' }, { tier: 'beta', staff: 'true', country: 'de', seats: '50' }];
    for (let e = 0; e < 12; e++) {
      const flagKey = `f${e % 6}`;
      const request = { namespaceKey: ns, flagKey, entityId: `user-${rand(1000)}`, context: contexts[e % contexts.length], requestId: `req-${e}` };
      add(e % 6 === 2 || e % 6 === 5 ? 'EvaluateBoolean' : 'EvaluateVariant', request);
      if (e % 4 === 0) add('Evaluate', { ...request, flagKey: e % 6 === 2 ? 'f0' : flagKey });
    }
    add('EvaluateBatch', { requests: [0, 1, 2, 3, 4, 5].map((i) => ({ namespaceKey: ns, flagKey: `f${i}`, entityId: `u${i}`, context: contexts[i] })).concat([{ namespaceKey: ns, flagKey: 'absent', entityId: 'u', context: {} }]) });
    add('BatchEvaluate', { namespaceKey: ns, requests: [0, 1, 3].map((i) => ({ flagKey: `f${i}`, entityId: `u${i}`, context: contexts[i] })) });
    add('EvaluateVariant', { namespaceKey: ns, flagKey: 'nope', entityId: 'u', context: {} });
    add('EvaluationSnapshotNamespace', { key: ns });
    add('OfrepEvaluateFlag', { key: 'f2', context: { targetingKey: 'u7', staff: 'true' } }, undefined, { 'x-flipt-namespace': ns });
    add('OfrepEvaluateFlag', { key: 'f0', context: { targetingKey: 'u7', country: 'de' } }, undefined, { 'x-flipt-namespace': ns });
  }
  add('ListNamespaces', {});
  add('UpdateNamespace', { key: 'team', name: 'Team!', description: '' });
  add('GetNamespace', { key: 'team' });
  add('DeleteSegment', { namespaceKey: 'team', key: 'beta' }); // in use by rules: refused
  for (let i = 0; i < 6; i++) add('DeleteFlag', { namespaceKey: 'team', key: `f${i}` });
  add('DeleteSegment', { namespaceKey: 'team', key: 'beta' });
  add('DeleteConstraint', (ids) => ({ namespaceKey: 'default', segmentKey: 'beta', id: ids('default:c:beta') }));
  add('DeleteVariant', (ids) => ({ namespaceKey: 'default', flagKey: 'f1', id: ids('default:f1:a') }));
  add('DeleteRule', (ids) => ({ namespaceKey: 'default', flagKey: 'f1', id: ids('default:f1:r2') }));
  add('DeleteRollout', (ids) => ({ namespaceKey: 'default', flagKey: 'f2', id: ids('default:f2:ro1') }));
  add('DeleteNamespace', { key: 'team' });
  add('DeleteNamespace', { key: 'default' }); // protected
  add('EvaluationSnapshotNamespace', { key: 'default' });
  return out;
}

/** A message as proto-loader's client sends it: JSON objects under a Struct field become Struct messages. */
function structMessage(value: unknown): Json {
  if (value === null) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(structMessage) } };
  return { structValue: { fields: Object.fromEntries(Object.entries(value as Json).map(([k, v]) => [k, structMessage(v)])) } };
}
const toGrpc = (message: Json): Json => (message.metadata ? { ...message, metadata: structMessage(message.metadata).structValue } : message);

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

/** protojson's view of a proto-loader object (Timestamp as text, Struct and Value as JSON, no oneof discriminators). */
function fromGrpc(value: any): any {
  if (Array.isArray(value)) return value.map(fromGrpc);
  if (value === null || typeof value !== 'object') return value;
  if (Buffer.isBuffer(value)) return value.toString('base64');
  const keys = Object.keys(value);
  if (keys.length === 2 && 'seconds' in value && 'nanos' in value) return new Date(Number(value.seconds) * 1000 + value.nanos / 1e6).toISOString();
  if ('kind' in value && typeof value.kind === 'string' && value.kind in value) return value.kind === 'nullValue' ? null : fromGrpc(value.kind === 'structValue' ? { fields: value.structValue.fields, __struct: true } : value.kind === 'listValue' ? value.listValue.values : value[value.kind]);
  if ('fields' in value && keys.length <= 2) return Object.fromEntries(Object.entries(value.fields as Json).map(([k, v]) => [k, fromGrpc(v)]));
  const out: Json = {};
  for (const [k, v] of Object.entries(value)) {
    // proto-loader names the member set in each oneof (`rule: 'segment'`, `_metadata: 'metadata'`).
    if (typeof v === 'string' && v !== k && v in value && (k.startsWith('_') || keys.includes(v))) continue;
    out[k] = fromGrpc(v);
  }
  return out;
}

/** Ids and times by order of first appearance; zero values, durations and page tokens' contents left out. */
function normalise(value: unknown, seen: Map<string, string>): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => normalise(v, seen));
    return items.length === 0 ? undefined : items;
  }
  if (typeof value === 'string') {
    if (UUID.test(value)) {
      if (!seen.has(value)) seen.set(value, `id#${seen.size}`);
      return seen.get(value);
    }
    if (RFC3339.test(value) && !value.startsWith('2030') && !value.startsWith('2025')) return 'time';
    return value === '' ? undefined : value;
  }
  if (value === null || value === undefined || value === 0 || value === false) return undefined;
  if (typeof value !== 'object') return value;
  const out: Json = {};
  for (const [k, v] of Object.entries(value as Json)) {
    if (k === 'requestDurationMillis') continue;
    const n = k === 'nextPageToken' && v ? 'token' : normalise(v, seen);
    if (n !== undefined) out[k] = n;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

describe('the same operations over HTTP and gRPC', () => {
  const httpServer = useServer();
  const grpcServer = useServer();
  let grpc: GrpcClient;
  beforeAll(() => {
    grpc = new GrpcClient(grpcServer.service.grpcPort);
  });
  afterAll(() => grpc.close());

  it('answer alike, step by step: objects, lists, evaluations, snapshots and errors', async () => {
    const plan = steps();
    expect(plan.length).toBeGreaterThanOrEqual(200);
    const ids = { http: new Map<string, string>(), grpc: new Map<string, string>() };
    const seen = { http: new Map<string, string>(), grpc: new Map<string, string>() };
    const lookup = (side: Map<string, string>) => (label: string) => side.get(label) ?? `unknown-${label}`;
    let errors = 0;
    for (const [index, step] of plan.entries()) {
      const rpc = OPERATIONS[step.name].rpc as string;
      // HTTP: the first binding (Family B where there are two), path values from the message.
      const spec = routesOf(step.name)[0];
      const httpMessage = step.message(lookup(ids.http));
      const rest = { ...httpMessage };
      const path = spec.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => {
        const v = String(rest[name] ?? '');
        delete rest[name];
        return encodeURIComponent(v);
      });
      const readsQuery = spec.method === 'GET' || spec.method === 'DELETE';
      const query = readsQuery ? new URLSearchParams(Object.entries(rest).map(([k, v]): [string, string] => [k, String(v)])).toString() : '';
      const res = await httpServer.api.request(spec.method, query ? `${path}?${query}` : path, readsQuery ? undefined : rest, step.headers);
      const httpAnswer = res.status === 200 ? res.body : { error: res.body.code, message: res.body.message };

      let grpcAnswer: unknown;
      try {
        grpcAnswer = fromGrpc(await grpc.call(rpc, toGrpc(step.message(lookup(ids.grpc))), step.headers));
      } catch (err) {
        const { code, details } = err as { code: number; details: string };
        grpcAnswer = { error: code, message: details };
      }
      if (step.label && res.status === 200) {
        ids.http.set(step.label, res.body.id);
        ids.grpc.set(step.label, (grpcAnswer as Json).id);
      }
      if (res.status !== 200) errors++;
      const where = `step ${index}: ${step.name} ${JSON.stringify(httpMessage)}`;
      expect(normalise(grpcAnswer, seen.grpc), where).toEqual(normalise(httpAnswer, seen.http));
    }
    // The plan is only worth as much as its errors and successes both: make sure it has both.
    expect(errors).toBeGreaterThan(15);
    expect(plan.length - errors).toBeGreaterThan(150);
  });
});
