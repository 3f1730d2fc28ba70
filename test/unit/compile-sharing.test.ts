import { describe, expect, it } from 'vitest';
import type { Flag, NamespaceData, Rule, Segment, Variant } from '../../internal/core';
import { compileNamespace, evaluateVariant } from '../../internal/evaluation';

/**
 * Issue 16, item 3: a compiled namespace grows with what is distinct, not with rules. Rules on
 * the same segments share one pair of segment arrays, rules of a flag that split the same way
 * share one set of distributions, and the same split shares its bucket bounds across flags —
 * while every answer stays what it was.
 */

function variant(flag: string, key: string): Variant {
  return { id: `${flag}-${key}-id`, namespaceKey: 'default', flagKey: flag, key, name: '', description: '', attachment: key === 'b' ? '{"x":1}' : '', createdAt: 0, updatedAt: 0 };
}

function rule(flag: string, rank: number, segment: string, split: [string, number][]): Rule {
  const id = `${flag}-rule-${rank}`;
  // Fresh strings, as a database read gives them: sharing must not depend on identity going in.
  return {
    id,
    namespaceKey: 'default',
    flagKey: flag,
    segmentKeys: [`${segment}`.slice(0)],
    segmentOperator: 'OR_SEGMENT_OPERATOR',
    rank,
    // Each distribution has an id of its own, as stored: the split is shared all the same.
    distributions: split.map(([v, rollout], i) => ({ id: `${id}-d${i}`, ruleId: id, variantId: `${flag}-${v}-id`.repeat(1), rollout, createdAt: 0, updatedAt: 0 })),
    createdAt: 0,
    updatedAt: 0,
  };
}

function segment(key: string, plan: string): Segment {
  return {
    namespaceKey: 'default',
    key,
    name: key,
    description: '',
    matchType: 'ALL_MATCH_TYPE',
    constraints: [{ id: `${key}-c`, namespaceKey: 'default', segmentKey: key, type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: plan, description: '', createdAt: 0, updatedAt: 0 }],
    createdAt: 0,
    updatedAt: 0,
  } as Segment;
}

function flag(key: string): Flag {
  const variants = ['a', 'b', 'c'].map((v) => variant(key, v));
  return { namespaceKey: 'default', key, name: key, description: '', enabled: true, type: 'VARIANT_FLAG_TYPE', variants, defaultVariant: null, metadata: null, createdAt: 0, updatedAt: 0 };
}

const EVEN: [string, number][] = [['a', 34], ['b', 33], ['c', 33]];
const data: NamespaceData = {
  key: 'default',
  revision: '1',
  flags: [flag('f1'), flag('f2')],
  segments: [segment('gold', 'gold'), segment('silver', 'silver')],
  rules: [
    rule('f1', 1, 'gold', EVEN),
    rule('f1', 2, 'silver', EVEN),
    rule('f1', 3, 'silver', [['a', 0], ['b', 100]]),
    rule('f2', 1, 'gold', EVEN),
  ],
  rollouts: [],
};

describe('a compiled namespace shares what its rules have in common', () => {
  const snapshot = compileNamespace(data);
  const [r1, r2, r3] = snapshot.flags.get('f1')!.rules;
  const [other] = snapshot.flags.get('f2')!.rules;

  it('one pair of segment arrays per list of segment keys, across flags', () => {
    expect(other.segments).toBe(r1.segments);
    expect(other.segmentKeys).toBe(r1.segmentKeys);
    expect(r3.segmentKeys).toBe(r2.segmentKeys);
    expect(r1.segmentKeys).not.toBe(r2.segmentKeys);
    expect(Object.isFrozen(r1.segmentKeys)).toBe(true);
    expect(r2.segmentKeys).toEqual(['silver']);
  });

  it('one set of distributions per split within a flag, and one array of bounds per split across flags', () => {
    expect(r2.distributions).toBe(r1.distributions);
    expect(r1.valid).toBe(r1.distributions); // every share is positive: the same array
    expect(r3.distributions).not.toBe(r1.distributions);
    expect(r3.valid.map((d) => d.variantKey)).toEqual(['b']);
    expect(other.distributions).not.toBe(r1.distributions); // another flag's variants
    expect(other.bounds).toBe(r1.bounds);
    expect(r1.bounds).toEqual([340, 670, 1000]);
    expect(r1.distributions.map((d) => d.variantId)).toEqual(['f1-a-id', 'f1-b-id', 'f1-c-id']);
  });

  it('answers as before', () => {
    const gold = evaluateVariant(snapshot.flags.get('f1')!, 'user-1', { plan: 'gold' } as never);
    const silver = evaluateVariant(snapshot.flags.get('f1')!, 'user-1', { plan: 'silver' } as never);
    expect(gold.segmentKeys).toEqual(['gold']);
    expect(silver.segmentKeys).toEqual(['silver']);
    expect(['a', 'b', 'c']).toContain(gold.variantKey);
    expect(silver.match).toBe(true);
  });
});
