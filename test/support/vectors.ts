import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { Flag, Rollout, Rule, Segment, Variant } from '../../internal/core';
import type { WriteStore } from '../../internal/storage';
import type { NamespaceData } from '../../internal/evaluation';
import { expectStatus, type ApiClient } from './server';

/**
 * The evaluation cases of test/fixtures/evaluation (format in its README.md): loading them,
 * turning a case's store into evaluator data or management API calls, and checking an answer.
 */

/** `[type, property, operator, value]`, the type in lower case (`entity_id`). */
export type ConstraintSpec = [type: string, property: string, operator: string, value: string];
export interface SegmentSpec {
  key: string;
  match?: 'any';
  constraints: ConstraintSpec[];
}
export interface RuleSpec {
  rank?: number;
  segments: string[];
  operator?: 'and';
  split?: [variantKey: string, rollout: number][];
}
export type RolloutSpec =
  | { rank?: number; threshold: number; value: boolean }
  | { rank?: number; segments: string[]; operator?: 'and'; value: boolean };
export interface FlagSpec {
  key: string;
  type: 'variant' | 'boolean';
  enabled: boolean;
  variants?: (string | { key: string; attachment: string })[];
  default?: string;
  rules?: RuleSpec[];
  rollouts?: RolloutSpec[];
}
export interface StoreSpec {
  segments: SegmentSpec[];
  flags: FlagSpec[];
}
export interface Dataset extends StoreSpec {
  source: string;
  namespace: string;
}

export type Call = 'legacy' | 'legacy-batch' | 'variant' | 'boolean' | 'batch' | 'ofrep';
export interface EvaluationCase {
  source: string;
  call: Call;
  store?: StoreSpec;
  dataset?: string;
  request: any;
  answer?: Record<string, any>;
  answers?: Record<string, any>[];
  count?: number;
  error?: { status: number; code?: number; message?: string; ofrepCode?: string };
  body?: unknown;
}
export interface MatcherCase {
  source: string;
  constraint: [type: string, operator: string, value: string];
  given: string;
  matches: boolean;
}
export interface Hashing {
  buckets: { source: string; flagKey: string; entityId: string; variantBucket: number; thresholdValue?: number }[];
  bounds: { source: string; rollouts: number[]; bounds: number[] }[];
}
export interface OfrepMappingCase {
  source: string;
  call: 'single' | 'bulk';
  headers: Record<string, string>;
  flagKey?: string;
  context: Record<string, string>;
  storeFlags?: { key: string; type: string; enabled: boolean }[];
  evaluated: any;
  asks: unknown[];
  response: unknown;
}
export interface OfrepErrorCase {
  source: string;
  flagKey: string | null;
  raised: { class: string; message: string } | null;
  status: number;
  body?: unknown;
  bodyText?: string;
  internalText?: boolean;
}

const FIXTURES = join(__dirname, '../fixtures/evaluation');
const read = <T>(name: string): T => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8')) as T;

export const loadEvaluations = () => ({ cases: read<EvaluationCase[]>('evaluations.json'), datasets: read<Record<string, Dataset>>('datasets.json') });
export const loadMatchers = () => read<MatcherCase[]>('matchers.json');
export const loadHashing = () => read<Hashing>('hashing.json');
export const loadOfrep = () => read<{ mapping: OfrepMappingCase[]; errors: OfrepErrorCase[] }>('ofrep.json');

export const comparisonType = (t: string) => `${t.toUpperCase()}_COMPARISON_TYPE` as Segment['constraints'][number]['type'];
const matchType = (s: SegmentSpec) => (s.match === 'any' ? 'ANY_MATCH_TYPE' : 'ALL_MATCH_TYPE') as Segment['matchType'];
const segmentOperator = (o: 'and' | undefined) => (o === 'and' ? 'AND_SEGMENT_OPERATOR' : 'OR_SEGMENT_OPERATOR') as Rule['segmentOperator'];
const flagType = (f: FlagSpec) => (f.type === 'boolean' ? 'BOOLEAN_FLAG_TYPE' : 'VARIANT_FLAG_TYPE') as Flag['type'];
/** A rank left out is the item's position (1-based); the unit cases give theirs (often from 0). */
const rankAt = (item: { rank?: number }, i: number) => item.rank ?? i + 1;
const variantsOf = (f: FlagSpec) => (f.variants ?? []).map((v) => (typeof v === 'string' ? { key: v, attachment: '' } : v));
const thresholdOf = (r: RolloutSpec) => ('threshold' in r ? { percentage: r.threshold, value: r.value } : null);
const rolloutSegmentOf = (r: RolloutSpec) =>
  'segments' in r ? { segmentKeys: r.segments, segmentOperator: segmentOperator(r.operator), value: r.value } : null;

/** The store a case evaluates against, and the namespace it lives in (the request's, for a case's own store). */
export function caseStore(datasets: Record<string, Dataset>, c: EvaluationCase): { namespaceKey: string; store: StoreSpec } {
  if (c.dataset) return { namespaceKey: datasets[c.dataset].namespace, store: datasets[c.dataset] };
  const ns = c.request?.namespaceKey || c.request?.requests?.[0]?.namespaceKey || 'default';
  return { namespaceKey: ns, store: c.store! };
}

/** A store as evaluator data, rule order and ranks kept as given. */
export function toNamespaceData(namespaceKey: string, spec: StoreSpec): NamespaceData {
  let n = 0;
  const id = (p: string) => `${p}-${++n}`;
  const segments: Segment[] = spec.segments.map((s) => ({
    namespaceKey,
    key: s.key,
    name: s.key,
    description: '',
    matchType: matchType(s),
    constraints: s.constraints.map(([type, property, operator, value]) => ({
      id: id('c'),
      namespaceKey,
      segmentKey: s.key,
      type: comparisonType(type),
      property,
      operator,
      value,
      description: '',
      createdAt: 0,
      updatedAt: 0,
    })),
    createdAt: 0,
    updatedAt: 0,
  }));
  const rules: Rule[] = [];
  const rollouts: Rollout[] = [];
  const flags: Flag[] = spec.flags.map((f) => {
    const variants: Variant[] = variantsOf(f).map(({ key, attachment }) => ({
      id: id('v'),
      namespaceKey,
      flagKey: f.key,
      key,
      name: key,
      description: '',
      attachment,
      createdAt: 0,
      updatedAt: 0,
    }));
    const byKey = new Map(variants.map((v) => [v.key, v]));
    for (const [i, r] of (f.rules ?? []).entries()) {
      const ruleId = id('r');
      rules.push({
        id: ruleId,
        namespaceKey,
        flagKey: f.key,
        rank: rankAt(r, i),
        segmentKeys: r.segments,
        segmentOperator: segmentOperator(r.operator),
        distributions: (r.split ?? []).map(([variantKey, rollout]) => ({
          id: id('d'),
          ruleId,
          variantId: byKey.get(variantKey)!.id,
          rollout,
          createdAt: 0,
          updatedAt: 0,
        })),
        createdAt: 0,
        updatedAt: 0,
      });
    }
    for (const [i, r] of (f.rollouts ?? []).entries()) {
      rollouts.push({
        id: id('ro'),
        namespaceKey,
        flagKey: f.key,
        rank: rankAt(r, i),
        description: '',
        type: 'threshold' in r ? 'THRESHOLD_ROLLOUT_TYPE' : 'SEGMENT_ROLLOUT_TYPE',
        threshold: thresholdOf(r),
        segment: rolloutSegmentOf(r),
        createdAt: 0,
        updatedAt: 0,
      });
    }
    return {
      namespaceKey,
      key: f.key,
      name: f.key,
      description: '',
      enabled: f.enabled,
      type: flagType(f),
      variants,
      defaultVariant: f.default ? byKey.get(f.default)! : null,
      metadata: null,
      createdAt: 0,
      updatedAt: 0,
    };
  });
  return { key: namespaceKey, revision: '1', flags, segments, rules, rollouts };
}

/**
 * Whether the management API can build this store as given: rules and rollouts must be in
 * non-decreasing rank order (ours are always 1..n, so a case built to test Flipt's
 * "detected out of order" error can only run through the pure evaluator).
 */
export function expressibleThroughApi(spec: StoreSpec): boolean {
  const sorted = (ranks: number[]) => ranks.every((r, i) => i === 0 || r >= ranks[i - 1]);
  return spec.flags.every((f) => sorted((f.rules ?? []).map(rankAt)) && sorted((f.rollouts ?? []).map(rankAt)));
}

/** Builds a store through the public management API, in store order. */
export async function seedThroughApi(api: ApiClient, namespaceKey: string, spec: StoreSpec): Promise<void> {
  const p = `/api/v1/namespaces/${namespaceKey}`;
  if (namespaceKey !== 'default') {
    const res = await api.post('/api/v1/namespaces', { key: namespaceKey, name: namespaceKey });
    if (res.status !== 200 && !/is not unique/.test(res.body?.message ?? '')) expectStatus(res, 200);
  }
  for (const s of spec.segments) {
    expectStatus(await api.post(`${p}/segments`, { key: s.key, name: s.key, matchType: matchType(s) }), 200);
    for (const [type, property, operator, value] of s.constraints) {
      expectStatus(await api.post(`${p}/segments/${s.key}/constraints`, { type: comparisonType(type), property, operator, value }), 200);
    }
  }
  for (const f of spec.flags) {
    expectStatus(await api.post(`${p}/flags`, { key: f.key, name: f.key, type: flagType(f), enabled: f.enabled }), 200);
    const variantIds = new Map<string, string>();
    for (const { key, attachment } of variantsOf(f)) {
      const v = expectStatus(await api.post(`${p}/flags/${f.key}/variants`, { key, name: key, attachment }), 200);
      variantIds.set(key, v.id);
    }
    if (f.default) {
      const body = { name: f.key, enabled: f.enabled, defaultVariantId: variantIds.get(f.default) };
      expectStatus(await api.put(`${p}/flags/${f.key}`, body), 200);
    }
    for (const [i, r] of (f.rules ?? []).entries()) {
      const body = { rank: i + 1, segmentKeys: r.segments, segmentOperator: segmentOperator(r.operator) };
      const rule = expectStatus(await api.post(`${p}/flags/${f.key}/rules`, body), 200);
      for (const [variantKey, rollout] of r.split ?? []) {
        const dist = { variantId: variantIds.get(variantKey), rollout };
        expectStatus(await api.post(`${p}/flags/${f.key}/rules/${rule.id}/distributions`, dist), 200);
      }
    }
    for (const [i, r] of (f.rollouts ?? []).entries()) {
      const body = { rank: i + 1, ...('threshold' in r ? { threshold: thresholdOf(r) } : { segment: rolloutSegmentOf(r) }) };
      expectStatus(await api.post(`${p}/flags/${f.key}/rollouts`, body), 200);
    }
  }
}

/**
 * Builds a store straight through the storage layer, skipping the management API's validation:
 * for unit-test data the API rightly refuses (an empty constraint property, a datetime
 * constraint whose value is not a date) but whose evaluation behaviour still matters.
 */
export async function seedThroughStore(store: WriteStore, namespaceKey: string, spec: StoreSpec): Promise<void> {
  const data = toNamespaceData(namespaceKey, spec);
  for (const s of data.segments) {
    await store.createSegment(namespaceKey, s.key, { name: s.name, description: '', matchType: s.matchType });
    for (const c of s.constraints) await store.createConstraint(namespaceKey, s.key, c);
  }
  for (const f of data.flags) {
    await store.createFlag(namespaceKey, { key: f.key, name: f.name, description: '', enabled: f.enabled, type: f.type, metadata: null });
    const ids = new Map<string, string>();
    for (const v of f.variants) ids.set(v.id, (await store.createVariant(namespaceKey, f.key, v)).id);
    if (f.defaultVariant) {
      await store.updateFlag(namespaceKey, f.key, { name: f.name, description: '', enabled: f.enabled, defaultVariantId: ids.get(f.defaultVariant.id)!, metadata: undefined });
    }
    for (const [i, r] of data.rules.filter((r) => r.flagKey === f.key).entries()) {
      const rule = await store.createRule(namespaceKey, f.key, i + 1, { segmentKeys: r.segmentKeys, segmentOperator: r.segmentOperator });
      for (const d of r.distributions) await store.createDistribution(namespaceKey, f.key, rule.id, { variantId: ids.get(d.variantId)!, rollout: d.rollout });
    }
    for (const [i, r] of data.rollouts.filter((r) => r.flagKey === f.key).entries()) {
      await store.createRollout(namespaceKey, f.key, i + 1, { description: '', segment: r.segment, threshold: r.threshold });
    }
  }
}

/** Whether the management API accepts every constraint of this store. */
export function constraintsValidForApi(spec: StoreSpec): boolean {
  return spec.segments.every((s) =>
    s.constraints.every(
      ([type, property, operator, value]) =>
        property !== '' &&
        (type !== 'entity_id' || property === 'entityId') &&
        (type !== 'datetime' || operator === 'present' || operator === 'notpresent' || /^\d{4}-\d{2}-\d{2}/.test(value)),
    ),
  );
}

/**
 * Checks one evaluation result against an answer (fields in the fixtures' README). The result
 * uses the field names of its surface (`value`/`attachment` for legacy responses,
 * `variantKey`/`variantAttachment` for /evaluate/v1). `sent` is the request the result answers:
 * a response that echoes the context must echo exactly the context sent.
 */
export function checkAnswer(result: Record<string, any>, answer: Record<string, any>, label: string, sent?: { context?: Record<string, string> }): void {
  const variant = result.value ?? result.variantKey;
  const attachment = result.attachment ?? result.variantAttachment;
  for (const [field, expected] of Object.entries(answer)) {
    const at = `${label}: ${field}`;
    switch (field) {
      case 'as':
        break;
      case 'variant':
        expect(variant, at).toBe(expected);
        break;
      case 'attachment':
        expect(JSON.parse(attachment), at).toEqual(expected);
        break;
      case 'someVariant':
        expect(variant, at).not.toBe('');
        break;
      case 'segmentsInclude':
        expect(result.segmentKeys, at).toEqual(expect.arrayContaining(expected));
        break;
      case 'echoesContext':
        if (!sent) throw new Error(`${at}: the request sent is needed to check its echo`);
        expect(result.requestContext, at).toEqual(sent.context ?? {});
        break;
      default:
        expect(result[field], at).toEqual(expected);
    }
  }
}
