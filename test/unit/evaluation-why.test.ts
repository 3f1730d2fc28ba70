import { describe, expect, it } from 'vitest';
import type { Flag, NamespaceData, Rollout, Rule, Segment } from '../../internal/core/types';
import { compileNamespace, distributionRanges, evaluateBoolean, evaluateVariant, explain, newTrace, variantBucket, why } from '../../internal/evaluation';
import { CRC_START, crc32Update } from '../../internal/evaluation/hash';

/**
 * The one-line "why" of an evaluation (shared by `pennon evaluate` and the dashboard's console):
 * it names the rule or rollout that answered and says the earlier ones did not match; and the
 * bucket ranges of a rule whose distributions add up to more than 100%.
 */

const at = 1;
const variant = (key: string) => ({ id: `v-${key}`, namespaceKey: 'default', flagKey: 'f', key, name: key, description: '', attachment: '', createdAt: at, updatedAt: at });
const segment = (key: string, property?: string): Segment => ({
  namespaceKey: 'default',
  key,
  name: key,
  description: '',
  matchType: 'ALL_MATCH_TYPE',
  constraints: property ? [{ id: `c-${key}`, namespaceKey: 'default', segmentKey: key, type: 'STRING_COMPARISON_TYPE', property, operator: 'eq', value: 'yes', description: '', createdAt: at, updatedAt: at }] : [],
  createdAt: at,
  updatedAt: at,
});
const rule = (rank: number, segmentKey: string, distributions: [string, number][]): Rule => ({
  id: `r${rank}`,
  namespaceKey: 'default',
  flagKey: 'f',
  segmentKeys: [segmentKey],
  segmentOperator: 'OR_SEGMENT_OPERATOR',
  rank,
  distributions: distributions.map(([key, rollout], i) => ({ id: `d${rank}-${i}`, ruleId: `r${rank}`, variantId: `v-${key}`, rollout, createdAt: at, updatedAt: at })),
  createdAt: at,
  updatedAt: at,
});

function variantFlag(rules: Rule[], options: { enabled?: boolean; defaultVariant?: string } = {}) {
  const variants = ['control', 'treatment'].map(variant);
  const flag: Flag = {
    namespaceKey: 'default',
    key: 'f',
    name: 'f',
    description: '',
    enabled: options.enabled ?? true,
    type: 'VARIANT_FLAG_TYPE',
    variants,
    defaultVariant: variants.find((v) => v.key === options.defaultVariant) ?? null,
    metadata: null,
    createdAt: at,
    updatedAt: at,
  };
  const data: NamespaceData = { key: 'default', revision: '1', flags: [flag], segments: [segment('beta', 'beta'), segment('staff', 'staff'), segment('everyone')], rules, rollouts: [] };
  return compileNamespace(data).flags.get('f')!;
}

function variantWhy(rules: Rule[], context: Record<string, string>, options?: { enabled?: boolean; defaultVariant?: string }, entityId = 'user-1') {
  const flag = variantFlag(rules, options);
  const trace = newTrace();
  const result = evaluateVariant(flag, entityId, context, trace);
  return { text: why(flag, trace), lines: explain(flag, trace, result), bucket: variantBucket(crc32Update(CRC_START, 'f'), entityId) };
}

describe('why: which rule answered', () => {
  it('names the rule that matched and the earlier ones that did not', () => {
    const { text, bucket } = variantWhy([rule(1, 'beta', [['treatment', 100]]), rule(2, 'everyone', [['control', 50], ['treatment', 50]])], {});
    expect(text).toBe(`rule 2 matched (rule 1 did not): bucket ${bucket} falls in ${bucket < 500 ? 'control' : 'treatment'}'s range`);
  });

  it('says nothing about earlier rules when the first one matched, and lists several that did not', () => {
    expect(variantWhy([rule(1, 'everyone', [['control', 100]])], {}).text).toMatch(/^rule 1 matched: bucket \d+ falls in control's range$/);
    const fourth = [rule(1, 'beta', []), rule(2, 'staff', []), rule(3, 'beta', []), rule(4, 'everyone', [['treatment', 100]])];
    expect(variantWhy(fourth, {}).text).toMatch(/^rule 4 matched \(rules 1–3 did not\): bucket \d+ falls in treatment's range$/);
    expect(variantWhy(fourth.slice(0, 2).concat(rule(3, 'everyone', [])), {}).text).toBe('rule 3 matched (rules 1 and 2 did not): it has no distributions: a match without a variant of its own');
  });

  it('for no match, the rules tried and the default', () => {
    const rules = [rule(1, 'beta', [['treatment', 100]]), rule(2, 'staff', [['control', 100]])];
    expect(variantWhy(rules, {}, { defaultVariant: 'control' }).text).toBe('rules 1 and 2 did not match: the default variant control');
    expect(variantWhy(rules.slice(0, 1), {}).text).toBe('rule 1 did not match: no variant (the flag has no default variant)');
    expect(variantWhy([], {}, { defaultVariant: 'treatment' }).text).toBe('the flag has no rules: the default variant treatment');
    expect(variantWhy(rules, { beta: 'yes' }, { enabled: false, defaultVariant: 'control' }).text).toBe('the flag is disabled: its default variant control');
  });

  it('the CLI prints the same sentence on its why line', () => {
    const { lines, text } = variantWhy([rule(1, 'beta', [['treatment', 100]]), rule(2, 'everyone', [['control', 100]])], {});
    expect(lines[lines.length - 1]).toBe(`why: ${text}`);
    expect(text).toMatch(/^rule 2 matched \(rule 1 did not\): bucket \d+ falls in control's range$/);
  });

  it('names the rollout of a boolean flag that answered', () => {
    const flag: Flag = { ...variantFlagShape(), type: 'BOOLEAN_FLAG_TYPE', enabled: false };
    const rollouts: Rollout[] = [
      { id: 'o1', namespaceKey: 'default', flagKey: 'f', type: 'SEGMENT_ROLLOUT_TYPE', rank: 1, description: '', segment: { segmentKeys: ['beta'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: false }, threshold: null, createdAt: at, updatedAt: at },
      { id: 'o2', namespaceKey: 'default', flagKey: 'f', type: 'SEGMENT_ROLLOUT_TYPE', rank: 2, description: '', segment: { segmentKeys: ['staff'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true }, threshold: null, createdAt: at, updatedAt: at },
    ];
    const compiled = compileNamespace({ key: 'default', revision: '1', flags: [flag], segments: [segment('beta', 'beta'), segment('staff', 'staff')], rules: [], rollouts }).flags.get('f')!;
    const matched = newTrace();
    evaluateBoolean(compiled, 'u', { staff: 'yes' }, matched);
    expect(why(compiled, matched)).toBe('rollout 2 matched (rollout 1 did not): segment staff matches, so true');
    const none = newTrace();
    evaluateBoolean(compiled, 'u', {}, none);
    expect(why(compiled, none)).toBe("rollouts 1 and 2 did not match: the flag's enabled value (false)");
  });
});

function variantFlagShape(): Flag {
  return { namespaceKey: 'default', key: 'f', name: 'f', description: '', enabled: true, type: 'VARIANT_FLAG_TYPE', variants: [], defaultVariant: null, metadata: null, createdAt: at, updatedAt: at };
}

describe('bucket ranges of distributions that add up to more than 100%', () => {
  it('keeps 0–999 and lists the rest as never reached, with what each variant really gets', () => {
    const ranges = distributionRanges([
      { variant: 'control', rollout: 60 },
      { variant: 'treatment', rollout: 60 },
    ]);
    expect(ranges.reachable).toEqual([
      { from: 0, to: 599, variant: 'control' },
      { from: 600, to: 999, variant: 'treatment' },
    ]);
    expect(ranges.unreachable).toEqual([{ from: 1000, to: 1199, variant: 'treatment' }]);
    expect(ranges.total).toBe(120);
    expect(ranges.shares).toEqual([
      { variant: 'control', rollout: 60, served: 60, cut: false },
      { variant: 'treatment', rollout: 60, served: 40, cut: true },
    ]);
    const whole = distributionRanges([
      { variant: 'a', rollout: 100 },
      { variant: 'b', rollout: 0 },
      { variant: 'c', rollout: 25 },
    ]);
    expect(whole.unreachable).toEqual([{ from: 1000, to: 1249, variant: 'c' }]);
    expect(whole.shares.map((s) => [s.variant, s.served, s.cut])).toEqual([
      ['a', 100, false],
      ['c', 0, true],
    ]);
  });

  it('a split under 100% ends with the undistributed tail and nothing unreachable', () => {
    const ranges = distributionRanges([
      { variant: 'a', rollout: 30 },
      { variant: 'b', rollout: 30 },
    ]);
    expect(ranges.reachable).toEqual([
      { from: 0, to: 299, variant: 'a' },
      { from: 300, to: 599, variant: 'b' },
      { from: 600, to: 999, variant: null },
    ]);
    expect(ranges.unreachable).toEqual([]);
  });

  it('pennon evaluate says which range is never reached', () => {
    const { lines } = variantWhy([rule(1, 'everyone', [['control', 60], ['treatment', 60]])], {});
    expect(lines.find((l) => l.includes('bucket'))).toMatch(/ranges: 0–599 control, 600–999 treatment; never reached \(the distributions add up to 120%\): 1000–1199 treatment$/);
  });
});
