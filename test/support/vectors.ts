import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { expect } from 'vitest';
import type { Flag, Rollout, Rule, Segment, Variant } from '../../internal/core';
import type { WriteStore } from '../../internal/storage';
import type { NamespaceData } from '../../internal/evaluation';
import { expectStatus, type ApiClient } from './server';

/**
 * Flipt's evaluation vectors (../shared/vectors/flipt-eval-vectors.json, schema in
 * reference/flipt-evaluation.md §11): loading, turning a case's flags into store data or
 * into management API calls, and checking a response against a case's `expect`.
 */

export interface VConstraint {
  type: 'STRING' | 'NUMBER' | 'BOOLEAN' | 'DATETIME' | 'ENTITY_ID' | string;
  property: string;
  operator: string;
  value: string;
}
export interface VSegment {
  key: string;
  matchType: 'ALL' | 'ANY';
  constraints: VConstraint[];
}
export interface VRule {
  rank: number;
  segmentOperator: 'OR' | 'AND';
  segments: VSegment[];
  distributions: { variantKey: string; rollout: number; attachment?: string }[];
}
export type VRollout =
  | { rank: number; threshold: { percentage: number; value: boolean } }
  | { rank: number; segment: { value: boolean; segmentOperator?: 'OR' | 'AND'; segments: VSegment[] } };
export interface VFlag {
  key: string;
  type: 'VARIANT' | 'BOOLEAN';
  enabled: boolean;
  defaultVariant: { key: string; attachment?: string } | null;
  rules: VRule[];
  rollouts: VRollout[];
}
export interface VCase {
  id: string;
  kind: string;
  surface: string;
  setup?: { flags: VFlag[] };
  dataset?: string;
  request?: any;
  input?: any;
  constraint?: VConstraint;
  expect: any;
  derived?: any;
  notes?: string;
}
export interface Vectors {
  datasets: Record<string, { namespaceKey: string; flags: VFlag[] }>;
  cases: VCase[];
  supplementary: {
    constraints: { constraint: VConstraint; input: { value: string }; expect: { match: boolean } }[];
    hashes: { flagKey: string; entityId: string; variantBucket: number; thresholdValue?: number | null }[];
    bucketLayouts: { rollouts: number[]; buckets: number[] }[];
  };
}

export const VECTORS_PATH = resolve(__dirname, '../../../shared/vectors/flipt-eval-vectors.json');

export function loadVectors(): Vectors {
  return JSON.parse(readFileSync(VECTORS_PATH, 'utf8')) as Vectors;
}

export const comparisonType = (t: string) => (`${t}_COMPARISON_TYPE` as Segment['constraints'][number]['type']);
export const matchType = (m: string) => (m === 'ANY' ? 'ANY_MATCH_TYPE' : 'ALL_MATCH_TYPE') as Segment['matchType'];
export const segmentOperator = (o: string | undefined) => (o === 'AND' ? 'AND_SEGMENT_OPERATOR' : 'OR_SEGMENT_OPERATOR') as Rule['segmentOperator'];

/** The flags a case evaluates against, and the namespace they live in. */
export function caseFlags(v: Vectors, c: VCase): { namespaceKey: string; flags: VFlag[] } {
  if (c.dataset) return { namespaceKey: v.datasets[c.dataset].namespaceKey, flags: v.datasets[c.dataset].flags };
  const ns = c.request?.namespaceKey || c.request?.requests?.[0]?.namespaceKey || 'default';
  return { namespaceKey: ns, flags: c.setup?.flags ?? [] };
}

/** Every segment the flags use, by key (a key used twice must mean the same segment). */
export function segmentsOf(flags: VFlag[]): Map<string, VSegment> {
  const out = new Map<string, VSegment>();
  const add = (s: VSegment) => {
    const seen = out.get(s.key);
    if (seen && JSON.stringify(seen) !== JSON.stringify(s)) throw new Error(`segment ${s.key} defined twice, differently`);
    out.set(s.key, s);
  };
  for (const f of flags) {
    for (const r of f.rules) r.segments.forEach(add);
    for (const r of f.rollouts) if ('segment' in r) r.segment.segments.forEach(add);
  }
  return out;
}

/** Variant keys of a flag with their attachments (from distributions and the default). */
function variantsOf(f: VFlag): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of f.rules) for (const d of r.distributions) out.set(d.variantKey, d.attachment ?? '');
  if (f.defaultVariant) out.set(f.defaultVariant.key, f.defaultVariant.attachment ?? '');
  return out;
}

/** A case's flags as store data, for the pure evaluator (rule order and ranks kept as given). */
export function toNamespaceData(namespaceKey: string, flags: VFlag[]): NamespaceData {
  let n = 0;
  const id = (p: string) => `${p}-${++n}`;
  const segments: Segment[] = [...segmentsOf(flags).values()].map((s) => ({
    namespaceKey,
    key: s.key,
    name: s.key,
    description: '',
    matchType: matchType(s.matchType),
    constraints: s.constraints.map((c) => ({
      id: id('c'),
      namespaceKey,
      segmentKey: s.key,
      type: comparisonType(c.type),
      property: c.property,
      operator: c.operator,
      value: c.value,
      description: '',
      createdAt: 0,
      updatedAt: 0,
    })),
    createdAt: 0,
    updatedAt: 0,
  }));
  const rules: Rule[] = [];
  const rollouts: Rollout[] = [];
  const data: Flag[] = flags.map((f) => {
    const variants: Variant[] = [...variantsOf(f)].map(([key, attachment]) => ({
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
    for (const r of f.rules) {
      const ruleId = id('r');
      rules.push({
        id: ruleId,
        namespaceKey,
        flagKey: f.key,
        rank: r.rank,
        segmentKeys: r.segments.map((s) => s.key),
        segmentOperator: segmentOperator(r.segmentOperator),
        distributions: r.distributions.map((d) => ({
          id: id('d'),
          ruleId,
          variantId: byKey.get(d.variantKey)!.id,
          rollout: d.rollout,
          createdAt: 0,
          updatedAt: 0,
        })),
        createdAt: 0,
        updatedAt: 0,
      });
    }
    for (const r of f.rollouts) {
      rollouts.push({
        id: id('ro'),
        namespaceKey,
        flagKey: f.key,
        rank: r.rank,
        description: '',
        type: 'threshold' in r ? 'THRESHOLD_ROLLOUT_TYPE' : 'SEGMENT_ROLLOUT_TYPE',
        threshold: 'threshold' in r ? r.threshold : null,
        segment:
          'segment' in r
            ? { segmentKeys: r.segment.segments.map((s) => s.key), segmentOperator: segmentOperator(r.segment.segmentOperator), value: r.segment.value }
            : null,
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
      type: f.type === 'BOOLEAN' ? 'BOOLEAN_FLAG_TYPE' : 'VARIANT_FLAG_TYPE',
      variants,
      defaultVariant: f.defaultVariant ? byKey.get(f.defaultVariant.key)! : null,
      metadata: null,
      createdAt: 0,
      updatedAt: 0,
    };
  });
  return { key: namespaceKey, revision: '1', flags: data, segments, rules, rollouts };
}

/**
 * Whether the management API can build these flags as given: rules and rollouts must be in
 * non-decreasing rank order (ours are always 1..n, so a case built to test Flipt's
 * "detected out of order" error can only run through the pure evaluator).
 */
export function expressibleThroughApi(flags: VFlag[]): boolean {
  const sorted = (ranks: number[]) => ranks.every((r, i) => i === 0 || r >= ranks[i - 1]);
  return flags.every((f) => sorted(f.rules.map((r) => r.rank)) && sorted(f.rollouts.map((r) => r.rank)));
}

/** Builds a case's flags through the public management API, in store order. */
export async function seedThroughApi(api: ApiClient, namespaceKey: string, flags: VFlag[]): Promise<void> {
  const p = `/api/v1/namespaces/${namespaceKey}`;
  if (namespaceKey !== 'default') {
    const res = await api.post('/api/v1/namespaces', { key: namespaceKey, name: namespaceKey });
    if (res.status !== 200 && !/is not unique/.test(res.body?.message ?? '')) expectStatus(res, 200);
  }
  for (const s of segmentsOf(flags).values()) {
    expectStatus(await api.post(`${p}/segments`, { key: s.key, name: s.key, matchType: matchType(s.matchType) }), 200);
    for (const c of s.constraints) {
      const body = { type: comparisonType(c.type), property: c.property, operator: c.operator, value: c.value };
      expectStatus(await api.post(`${p}/segments/${s.key}/constraints`, body), 200);
    }
  }
  for (const f of flags) {
    const type = f.type === 'BOOLEAN' ? 'BOOLEAN_FLAG_TYPE' : 'VARIANT_FLAG_TYPE';
    expectStatus(await api.post(`${p}/flags`, { key: f.key, name: f.key, type, enabled: f.enabled }), 200);
    const variantIds = new Map<string, string>();
    for (const [key, attachment] of variantsOf(f)) {
      const v = expectStatus(await api.post(`${p}/flags/${f.key}/variants`, { key, name: key, attachment }), 200);
      variantIds.set(key, v.id);
    }
    if (f.defaultVariant) {
      const body = { name: f.key, enabled: f.enabled, defaultVariantId: variantIds.get(f.defaultVariant.key) };
      expectStatus(await api.put(`${p}/flags/${f.key}`, body), 200);
    }
    for (const [i, r] of f.rules.entries()) {
      const body = { rank: i + 1, segmentKeys: r.segments.map((s) => s.key), segmentOperator: segmentOperator(r.segmentOperator) };
      const rule = expectStatus(await api.post(`${p}/flags/${f.key}/rules`, body), 200);
      for (const d of r.distributions) {
        const dist = { variantId: variantIds.get(d.variantKey), rollout: d.rollout };
        expectStatus(await api.post(`${p}/flags/${f.key}/rules/${rule.id}/distributions`, dist), 200);
      }
    }
    for (const [i, r] of f.rollouts.entries()) {
      const body =
        'threshold' in r
          ? { rank: i + 1, threshold: r.threshold }
          : {
              rank: i + 1,
              segment: {
                segmentKeys: r.segment.segments.map((s) => s.key),
                segmentOperator: segmentOperator(r.segment.segmentOperator),
                value: r.segment.value,
              },
            };
      expectStatus(await api.post(`${p}/flags/${f.key}/rollouts`, body), 200);
    }
  }
}

/**
 * Builds a case's flags straight through the store, skipping the management API's validation:
 * for unit-test data the API rightly refuses (an empty constraint property, a datetime
 * constraint whose value is not a date) but whose evaluation behaviour still matters.
 */
export async function seedThroughStore(store: WriteStore, namespaceKey: string, flags: VFlag[]): Promise<void> {
  const data = toNamespaceData(namespaceKey, flags);
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

/** Whether the management API accepts every constraint of these flags. */
export function constraintsValidForApi(flags: VFlag[]): boolean {
  return [...segmentsOf(flags).values()].every((s) =>
    s.constraints.every((c) => c.property !== '' && (c.type !== 'ENTITY_ID' || c.property === 'entityId') && (c.type !== 'DATETIME' || c.operator === 'present' || c.operator === 'notpresent' || /^\d{4}-\d{2}-\d{2}/.test(c.value))),
  );
}

/**
 * Checks one evaluation result against an `expect` block (the §11 field conventions). The
 * result uses the field names of the surface (`value`/`attachment` for legacy responses,
 * `variantKey`/`variantAttachment` for /evaluate/v1).
 */
export function checkFields(result: Record<string, any>, want: Record<string, any>, label: string): void {
  const value = result.value ?? result.variantKey;
  const attachment = result.attachment ?? result.variantAttachment;
  for (const [field, expected] of Object.entries(want)) {
    const at = `${label}: ${field}`;
    switch (field) {
      case 'error':
      case 'matcherError':
      case 'derived':
        break;
      case 'value':
      case 'variantKey':
        expect(value, at).toBe(expected);
        break;
      case 'attachment':
        expect(attachment, at).toBe(expected);
        break;
      case 'attachmentJSON':
        expect(JSON.parse(attachment), at).toEqual(expected);
        break;
      case 'valueNotEmpty':
        expect(value, at).not.toBe('');
        break;
      case 'segmentKeys':
        expect(result.segmentKeys, at).toEqual(expected);
        break;
      case 'segmentKeysUnordered':
        expect([...result.segmentKeys].sort(), at).toEqual([...expected].sort());
        break;
      case 'segmentKeysContains':
        expect(result.segmentKeys, at).toEqual(expect.arrayContaining(expected));
        break;
      case 'requestContextEchoed':
        expect(result.requestContext, at).toBeDefined();
        break;
      case 'responses':
      case 'responsesLength':
        break;
      default:
        expect(result[field], at).toEqual(expected);
    }
  }
}
