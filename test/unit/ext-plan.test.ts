import { describe, expect, it } from 'vitest';
import {
  ExtError,
  decodeDocuments,
  droppedState,
  encodeDocuments,
  exportHeader,
  goMarshal,
  planImport,
  sortKeysDeep,
  type ExistingState,
  type PlanOptions,
} from '../../internal/ext';

/** Validation before import: Pennon's management rules and Flipt's importer checks, with locations. */

function plan(yaml: string, existing: ExistingState = droppedState(), options: PlanOptions = {}) {
  return planImport(decodeDocuments(yaml, { encoding: 'yaml' }), existing, options);
}

function failure(yaml: string, existing?: ExistingState): ExtError {
  try {
    plan(yaml, existing);
  } catch (err) {
    expect(err).toBeInstanceOf(ExtError);
    return err as ExtError;
  }
  throw new Error('expected an ExtError');
}

const flagDoc = (flag: string, extra = '') => `flags:\n- key: f\n  name: F\n${flag}segments:\n- {key: s1, name: S1}\n- {key: s2, name: S2}\n${extra}`;

describe('rules and rollouts', () => {
  it('refuses a rollout with both a segment and a threshold, in Flipt\'s words', () => {
    const err = failure(flagDoc('  type: BOOLEAN_FLAG_TYPE\n  rollouts:\n  - threshold: {percentage: 5}\n  - segment: {key: s1}\n    threshold: {percentage: 10}\n'));
    expect(err.reason).toBe('rollout "default/f/1" cannot have both segment and percentage rule');
    expect(err.location).toEqual({ document: 1, namespace: 'default', flag: 'f', field: 'rollouts[1]', line: 8 });
    const keys = failure(flagDoc('  rollouts:\n  - segment: {key: s1, keys: [s2]}\n'));
    expect(keys.reason).toBe('rollout default/f/0 cannot have both segment.keys and segment.key');
  });

  it('refuses references to segments in neither the document nor the store', () => {
    const err = failure(flagDoc('  rules:\n  - segment: s1\n  - segment: {keys: [s1, nope], operator: AND_SEGMENT_OPERATOR}\n'));
    expect(err.reason).toBe('segment "default/nope" not found in the document or the store');
    expect(err.location).toMatchObject({ flag: 'f', field: 'rules[1].segment', line: 6 });
    const rollout = failure(flagDoc('  rollouts:\n  - segment: {key: gone}\n'));
    expect(rollout.location).toMatchObject({ field: 'rollouts[0].segment' });
    // … and accepts those the store holds.
    const existing: ExistingState = { namespaces: new Set(['default']), flags: new Map(), segments: new Map([['default', new Set(['nope', 'gone'])]]) };
    expect(plan(flagDoc('  rules:\n  - segment: {keys: [s1, nope]}\n  rollouts:\n  - segment: {key: gone}\n'), existing).counts).toMatchObject({ rules: 1, rollouts: 1 });
  });

  it('refuses distributions of unknown variants, or outside 0..100', () => {
    const variants = '  variants:\n  - key: a\n';
    expect(failure(flagDoc(`${variants}  rules:\n  - segment: s1\n    distributions:\n    - {variant: b, rollout: 10}\n`)).reason).toBe('finding variant: b; flag: f');
    const high = failure(flagDoc(`${variants}  rules:\n  - segment: s1\n    distributions:\n    - {variant: a, rollout: 100.5}\n`));
    expect(high.reason).toBe("invalid field rollout: must be less than or equal to '100'");
    expect(high.location).toMatchObject({ field: 'rules[0].distributions[0].rollout', line: 9 });
    expect(failure(flagDoc(`${variants}  rules:\n  - segment: s1\n    distributions:\n    - {variant: a, rollout: -1}\n`)).reason).toBe(
      "invalid field rollout: must be greater than or equal to '0'",
    );
    expect(failure(flagDoc('  rollouts:\n  - threshold: {percentage: 150}\n')).reason).toBe('invalid field threshold.percentage: must be within range [0, 100]');
    expect(failure(flagDoc('  rollouts:\n  - description: nothing\n')).reason).toBe('rollout rule is missing');
    expect(failure(flagDoc('  rules:\n  - distributions: []\n')).reason).toBe('invalid field segmentKey or segmentKeys: must not be empty');
  });

  it('orders rules by rank (position + 1 when absent from 1.1; first, as rank 0, in 1.0)', () => {
    const rules = '  rules:\n  - {segment: s1, rank: 3}\n  - {segment: s2}\n  - {segment: [s1], rank: 1}\n'.replace('[s1]', '{keys: [s1, s2]}');
    const order = (version: string) => plan(`version: "${version}"\n${flagDoc(rules)}`).documents[0].flags[0].rules.map((r) => r.input.segmentKeys.join('+'));
    expect(order('1.1')).toEqual(['s1+s2', 's2', 's1']);
    expect(order('1.0')).toEqual(['s2', 's1+s2', 's1']);
  });

  it('normalises segment operators as the API does: one key is OR, AND kept for several', () => {
    const p = plan(flagDoc('  rules:\n  - segment: {keys: [s1], operator: AND_SEGMENT_OPERATOR}\n  - segment: {keys: [s1, s2, s1], operator: AND_SEGMENT_OPERATOR}\n'));
    expect(p.documents[0].flags[0].rules.map((r) => r.input)).toEqual([
      { segmentKeys: ['s1'], segmentOperator: 'OR_SEGMENT_OPERATOR' },
      { segmentKeys: ['s1', 's2'], segmentOperator: 'AND_SEGMENT_OPERATOR' },
    ]);
    expect(failure(flagDoc('  rules:\n  - segment: {keys: [s1, s2], operator: XOR}\n')).reason).toBe(
      'unknown segment operator "XOR" (expected OR_SEGMENT_OPERATOR or AND_SEGMENT_OPERATOR)',
    );
  });
});

describe('flags, variants and segments', () => {
  it('checks keys and names with the management API\'s rules', () => {
    expect(failure('flags:\n- {key: "a b", name: x}\n').reason).toBe('invalid field key: contains invalid characters');
    expect(failure('flags:\n- {key: a}\n').location).toMatchObject({ flag: 'a', field: 'name', line: 2 });
    expect(failure('flags:\n- {key: a}\n').reason).toBe('invalid field name: must not be empty');
    expect(failure('segments:\n- {key: "", name: x}\n').reason).toBe('invalid field key: must not be empty');
    expect(failure('flags:\n- {key: a, name: a, variants: [{name: x}]}\n').location).toMatchObject({ field: 'variants[0].key' });
    expect(failure('namespace: "bad key"\n').location).toMatchObject({ field: 'namespace', line: 1 });
    expect(failure('flags:\n- {key: a, name: a, type: ON_OFF}\n').reason).toBe('unknown flag type "ON_OFF" (expected VARIANT_FLAG_TYPE or BOOLEAN_FLAG_TYPE)');
    expect(failure('segments:\n- {key: a, name: a, match_type: SOME}\n').reason).toBe('unknown match type "SOME" (expected ALL_MATCH_TYPE or ANY_MATCH_TYPE)');
  });

  it('refuses keys used twice, in the document or already in the store', () => {
    expect(failure('flags:\n- {key: a, name: a}\n- {key: a, name: b}\n').reason).toBe('flag "default/a" is not unique');
    expect(failure('flags:\n- {key: a, name: a, variants: [{key: v}, {key: v}]}\n').reason).toBe('variant "v" is not unique for flag "default/a"');
    expect(failure('segments:\n- {key: s, name: s}\n---\nsegments:\n- {key: s, name: s}\n').location).toMatchObject({ document: 2, segment: 's' });
    const existing: ExistingState = { namespaces: new Set(['default']), flags: new Map([['default', new Set(['a'])]]), segments: new Map() };
    expect(failure('flags:\n- {key: a, name: a}\n', existing).reason).toBe('flag "default/a" is not unique');
  });

  it('skips existing keys per document with skipExisting (earlier documents count as existing)', () => {
    const existing: ExistingState = {
      namespaces: new Set(['default']),
      flags: new Map([['default', new Set(['old'])]]),
      segments: new Map([['default', new Set(['seg'])]]),
    };
    const p = plan(
      'flags:\n- {key: old, name: x}\n- {key: new, name: x, rules: [{segment: seg}]}\nsegments:\n- {key: seg, name: s}\n---\nflags:\n- {key: new, name: again}\n',
      existing,
      { skipExisting: true },
    );
    expect(p.documents.map((d) => [d.flags.map((f) => f.input.key), d.skipped])).toEqual([
      [['new'], { flags: ['old'], segments: ['seg'] }],
      [[], { flags: ['new'], segments: [] }],
    ]);
    expect(p.counts).toMatchObject({ flags: 1, segments: 0, rules: 1 });
  });

  it('normalises constraints with the API\'s validation', () => {
    const segment = (c: string) => `segments:\n- key: s\n  name: s\n  constraints:\n  - ${c}\n`;
    const one = (c: string) => plan(segment(c)).documents[0].segments[0].constraints[0];
    expect(one('{type: STRING_COMPARISON_TYPE, property: p, operator: EQ, value: x}')).toEqual({
      type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: 'x', description: '',
    });
    expect(one('{type: DATETIME_COMPARISON_TYPE, property: d, operator: lt, value: "2024-01-02T10:00:00+02:00"}').value).toBe('2024-01-02T08:00:00Z');
    expect(one('{type: BOOLEAN_COMPARISON_TYPE, property: b, operator: "true", value: ignored}').value).toBe('');
    expect(one('{type: NUMBER_COMPARISON_TYPE, property: n, operator: isoneof, value: "[1, 2]"}').value).toBe('[1, 2]');
    const bad = failure(segment('{type: STRING_COMPARISON_TYPE, property: p, operator: gt, value: x}'));
    expect(bad.reason).toBe('constraint operator "gt" is not valid for type string');
    expect(bad.location).toEqual({ document: 1, namespace: 'default', segment: 's', field: 'constraints[0]', line: 5 });
    expect(failure(segment('{type: NUMBER_COMPARISON_TYPE, property: n, operator: isoneof, value: "[a]"}')).reason).toBe(
      'invalid value provided for property "n" of type number',
    );
    expect(failure(segment('{property: p, operator: eq, value: x}')).reason).toBe('invalid constraint type: ""');
    expect(failure(segment('{type: ENTITY_ID_COMPARISON_TYPE, property: id, operator: eq, value: x}')).reason).toBe('property is id instead of "entityId"');
  });

  it('re-marshals attachments to compact JSON as Flipt stores them, and keeps the last default variant', () => {
    const p = plan('version: "1.3"\nflags:\n- key: f\n  name: f\n  variants:\n  - {key: a, default: true, attachment: {z: 1, a: [true, null, "<x>"], m: {y: 2.5, b: 1}}}\n  - {key: b, default: true}\n  - {key: c}\n');
    const flag = p.documents[0].flags[0];
    expect(flag.variants.map((v) => v.attachment)).toEqual(['{"a":[true,null,"\\u003cx\\u003e"],"m":{"b":1,"y":2.5},"z":1}', '', '']);
    expect(flag.defaultVariant).toBe(1);
  });

  it('stores empty metadata as none, and names namespaces as Flipt creates them', () => {
    const p = plan('namespace: team\nflags:\n- {key: a, name: a, metadata: {}}\n---\nnamespace: {key: ops, name: Operations, description: d}\n---\nnamespace: team\n');
    expect(p.documents[0].flags[0].input.metadata).toBeNull();
    expect(p.documents.map((d) => d.createNamespace)).toEqual([
      { key: 'team', name: 'team', description: '' },
      { key: 'ops', name: 'Operations', description: 'd' },
      null,
    ]);
    expect(p.counts.namespaces).toBe(2);
  });
});

describe('encoding', () => {
  it('writes Go\'s JSON: sorted maps where asked, HTML escaped', () => {
    expect(goMarshal(sortKeysDeep({ b: { d: 1, c: [{ z: 1, y: 2 }] }, a: '<&>\u2028' }))).toBe('{"a":"\\u003c\\u0026\\u003e\\u2028","b":{"c":[{"y":2,"z":1}],"d":1}}');
    expect(goMarshal({ n: 1e21, m: 1e-7, k: 0.1 })).toBe('{"n":1e+21,"m":1e-7,"k":0.1}');
  });

  it('lays YAML out as yaml.v2 does, one document per namespace, version on the first', () => {
    const docs = [
      { version: '1.4', namespace: { key: 'default', name: 'Default' }, flags: [{ key: 'f', name: 'yes', type: 'VARIANT_FLAG_TYPE', enabled: true, variants: [{ key: 'a', attachment: { x: null } }] }] },
      { namespace: { key: 'b' } },
    ];
    expect(encodeDocuments(docs, 'yaml')).toBe(
      [
        'version: "1.4"',
        'namespace:',
        '  key: default',
        '  name: Default',
        'flags:',
        '- key: f',
        '  name: "yes"',
        '  type: VARIANT_FLAG_TYPE',
        '  enabled: true',
        '  variants:',
        '  - key: a',
        '    attachment:',
        '      x:',
        '---',
        'namespace:',
        '  key: b',
        '',
      ].join('\n'),
    );
    expect(encodeDocuments(docs, 'json')).toBe(
      '{"version":"1.4","namespace":{"key":"default","name":"Default"},"flags":[{"key":"f","name":"yes","type":"VARIANT_FLAG_TYPE","enabled":true,"variants":[{"key":"a","attachment":{"x":null}}]}]}\n{"namespace":{"key":"b"}}\n',
    );
    // What is written reads back the same.
    expect(decodeDocuments(encodeDocuments(docs, 'yaml'), { encoding: 'yaml' }).documents).toEqual(docs);
    expect(decodeDocuments(encodeDocuments(docs, 'json'), { encoding: 'json' }).documents).toEqual(docs);
  });

  it('writes the export header Flipt\'s CLI writes', () => {
    expect(exportHeader('Pennon', 'v0.1.0', new Date('2024-11-21T11:39:38.123Z'))).toBe('# exported by Pennon (v0.1.0) on 2024-11-21T11:39:38Z\n\n');
  });
});
