import { describe, expect, it } from 'vitest';
import { PennonError } from '../../../internal/core';
import {
  ExtError,
  PartialImportError,
  applyPlan,
  decodeDocuments,
  droppedState,
  importText,
  planImport,
  totalOf,
  type ImportProgress,
  type ImportTarget,
} from '../../../internal/ext';
import type { Store } from '../../../internal/storage';
import { dumpStore, fixture, seedMissingSegments } from '../../support/documents-in-store';
import { ALL, useStore } from '../../support/store';

/** --skip-existing, --drop, all-or-nothing imports, partial imports without transactions, progress. */

const TARGET_METHODS = [
  'getNamespace', 'listNamespaces', 'listFlags', 'listSegments', 'createNamespace', 'deleteNamespace', 'createFlag', 'updateFlag',
  'createVariant', 'createSegment', 'createConstraint', 'createRule', 'createDistribution', 'createRollout',
] as const;

/** The real store, minus transactions (as the HTTP API is), optionally counting calls. */
function target(store: Store, calls?: Map<string, number>, transactional = false): ImportTarget {
  const out = {} as Record<string, unknown>;
  for (const method of TARGET_METHODS) {
    out[method] = (...args: unknown[]) => {
      calls?.set(method, (calls.get(method) ?? 0) + 1);
      return (store[method] as (...a: unknown[]) => unknown)(...args);
    };
  }
  if (transactional) {
    out.transaction = <T>(fn: (t: ImportTarget) => Promise<T>) => store.transaction((tx) => fn(target(tx, calls, true)));
  }
  return out as unknown as ImportTarget;
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => null,
    (err: unknown) => err as Error,
  );
  if (!outcome) throw new Error('expected the import to fail');
  return outcome;
}

const yaml = (text: string) => ({ encoding: 'yaml' as const, text });

describe('--skip-existing', () => {
  const ctx = useStore();

  it('leaves flags and segments that exist alone and creates the rest (as Flipt\'s import_new_flags_only test)', async () => {
    const { store } = ctx;
    await seedMissingSegments(store, { default: ['staff'] });
    await store.createFlag('default', { key: 'checkout', name: 'Existing', description: '', enabled: false, type: 'VARIANT_FLAG_TYPE', metadata: null });
    await store.createSegment('default', 'beta-testers', { name: 'Existing', description: '', matchType: 'ALL_MATCH_TYPE' });
    const { text } = fixture('import/new-only.yml');

    const refused = await rejection(importText(store, text, { encoding: 'yaml' }));
    expect(refused).toBeInstanceOf(ExtError);
    expect((refused as ExtError).reason).toBe('flag "default/checkout" is not unique');

    const result = await importText(store, text, { encoding: 'yaml', skipExisting: true });
    expect(result.skipped).toEqual({ flags: ['default/checkout'], segments: ['default/beta-testers'] });
    expect(result.created).toMatchObject({ flags: 1, variants: 0, segments: 1, constraints: 1, rules: 0, rollouts: 2 });
    const checkout = await store.getFlag('default', 'checkout');
    expect([checkout.name, checkout.variants, (await store.listRules('default', 'checkout', ALL)).total]).toEqual(['Existing', [], 0]);
    expect((await store.getSegment('default', 'beta-testers')).constraints).toEqual([]);
    expect((await store.getSegment('default', 'returning')).constraints.map((c) => c.property)).toEqual(['orders']);
    expect((await store.listFlags('default', ALL)).items.map((f) => f.key)).toEqual(['checkout', 'dark-mode']);
  });

  it('applies per document: a later document in the same namespace skips what an earlier one created', async () => {
    const { store } = ctx;
    const text = 'flags:\n- {key: a, name: first}\n---\nnamespace: default\nflags:\n- {key: a, name: second}\n- {key: b, name: b}\n';
    const result = await importText(store, text, { encoding: 'yaml', skipExisting: true });
    expect(result.skipped.flags).toEqual(['default/a']);
    expect((await store.listFlags('default', ALL)).items.map((f) => [f.key, f.name])).toEqual([['a', 'first'], ['b', 'b']]);
  });
});

describe('--drop', () => {
  const ctx = useStore();

  it('deletes every namespace with everything in it, re-creates default, then imports', async () => {
    const { store } = ctx;
    await seedMissingSegments(store, { team: ['s'], default: ['staff'] });
    await store.createFlag('team', { key: 'x', name: 'x', description: '', enabled: true, type: 'VARIANT_FLAG_TYPE', metadata: null });
    await store.createRule('team', 'x', 1, { segmentKeys: ['s'], segmentOperator: 'OR_SEGMENT_OPERATOR' });
    await store.createFlag('default', { key: 'flag1', name: 'old', description: '', enabled: true, type: 'VARIANT_FLAG_TYPE', metadata: null });

    const text = 'flags:\n- {key: flag1, name: new}\n---\nnamespace: fresh\nsegments:\n- {key: s, name: s}\n';
    const result = await importText(store, text, { encoding: 'yaml', drop: true });
    expect(result.dropped).toEqual(['default', 'team']);
    expect((await store.listNamespaces(ALL)).items.map((n) => [n.key, n.name, n.description])).toEqual([
      ['default', 'Default', 'Default namespace'],
      ['fresh', 'fresh', ''],
    ]);
    expect((await store.listFlags('default', ALL)).items.map((f) => f.name)).toEqual(['new']);
    expect((await store.listSegments('default', ALL)).total).toBe(0);
  });

  it('checks the documents before dropping anything', async () => {
    const { store } = ctx;
    await seedMissingSegments(store, { team: ['s'] });
    const before = await dumpStore(store);
    const err = await rejection(importText(store, 'flags:\n- {key: f, name: f, rules: [{segment: s}]}\n', { encoding: 'yaml', drop: true }));
    // After a drop `s` would be gone from default (it only ever was in `team`).
    expect((err as ExtError).reason).toBe('segment "default/s" not found in the document or the store');
    expect(await dumpStore(store)).toEqual(before);
  });
});

describe('all or nothing', () => {
  const ctx = useStore();

  async function seeded(store: Store) {
    await seedMissingSegments(store, { default: ['staff'] });
    await importText(store, fixture('import/latest.yml').text, { encoding: 'yaml' });
    return dumpStore(store);
  }

  it('writes nothing when a document fails validation half-way through the stream', async () => {
    const { store } = ctx;
    const before = await seeded(store);
    const text = [
      'namespace: team',
      'flags:',
      '- {key: ok, name: ok, variants: [{key: v}]}',
      '---',
      'flags:',
      '- key: fine',
      '  name: fine',
      '  variants: [{key: a}]',
      '  rules:',
      '  - segment: beta-testers',
      '    distributions: [{variant: zzz, rollout: 10}]',
    ].join('\n');
    const err = await rejection(importText(store, text, { encoding: 'yaml' }));
    expect(err.message).toBe('finding variant: zzz; flag: fine (document 2, namespace "default", flag "fine", field rules[0].distributions[0].variant, line 11)');
    expect(await dumpStore(store)).toEqual(before);
  });

  it('rolls back everything when the store refuses a write in the middle of applying', async () => {
    const { store } = ctx;
    const before = await seeded(store);
    const stream = decodeDocuments('namespace: team\nflags:\n- {key: a, name: a, variants: [{key: v}], rules: [{segment: s, distributions: [{variant: v, rollout: 100}]}]}\nsegments:\n- {key: s, name: s}\n', { encoding: 'yaml' });
    const plan = planImport(stream, droppedState());
    // A rule naming a segment that exists in neither the document nor the store: only the store can refuse it now.
    plan.documents[0].flags[0].rules[0].input.segmentKeys = ['ghost'];
    const err = await rejection(applyPlan(store, plan));
    expect(err).toBeInstanceOf(PennonError);
    // The SQL store writes a document in bulk; its error names the namespace and the reference.
    expect(err.message).toBe('writing namespace "team": flag "team/a" or segment "team/ghost" not found');
    expect(await dumpStore(store)).toEqual(before);
  });

  it('without transactions, says how much was created before the failure and leaves it', async () => {
    const { store } = ctx;
    const stream = decodeDocuments('flags:\n- {key: a, name: a, variants: [{key: v}, {key: w}], rules: [{segment: s}]}\nsegments:\n- {key: s, name: s, constraints: [{type: STRING_COMPARISON_TYPE, property: p, operator: eq, value: x}]}\n', { encoding: 'yaml' });
    const plan = planImport(stream, droppedState());
    plan.documents[0].flags[0].rules[0].input.segmentKeys = ['ghost'];
    const err = await rejection(applyPlan(target(store), plan));
    expect(err).toBeInstanceOf(PartialImportError);
    expect((err as PartialImportError).created).toMatchObject({ flags: 1, variants: 2, segments: 1, constraints: 1, rules: 0 });
    expect(err.message).toBe(
      '5 objects were created before the failure and were not rolled back (1 flag, 2 variants, 1 segment, 1 constraint): ' +
        'creating rule 1 of flag "default/a": flag "default/a" or segment "default/ghost" not found',
    );
    expect((await store.getFlag('default', 'a')).variants).toHaveLength(2);
  });
});

describe('how the importer uses the store', () => {
  const ctx = useStore();

  it('reads three times per namespace, never per object, and reports progress object by object', async () => {
    const { store } = ctx;
    const flags = Array.from({ length: 40 }, (_, i) =>
      `- {key: f${i}, name: f${i}, variants: [{key: a}, {key: b, default: true}], rules: [{segment: s, distributions: [{variant: a, rollout: 50}, {variant: b, rollout: 50}]}]}`,
    );
    const text = `version: "1.4"\nflags:\n${flags.join('\n')}\nsegments:\n- {key: s, name: s}\n---\nnamespace: other\nflags:\n- {key: x, name: x}\n`;
    const calls = new Map<string, number>();
    const progress: ImportProgress[] = [];
    const result = await importText(target(store, calls, true), text, { encoding: 'yaml', onProgress: (p) => progress.push({ ...p, created: { ...p.created } }) });
    expect(Object.fromEntries(calls)).toEqual({
      getNamespace: 2,
      listFlags: 1,
      listSegments: 1,
      createNamespace: 1,
      createFlag: 41,
      createVariant: 80,
      updateFlag: 40,
      createSegment: 1,
      createRule: 40,
      createDistribution: 80,
    });
    const total = totalOf(result.created);
    expect(total).toBe(1 + 41 + 80 + 1 + 40 + 80);
    expect(progress.map((p) => p.done)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
    expect(progress.every((p) => p.total === total)).toBe(true);
    expect(progress[progress.length - 1].created).toEqual(result.created);
    expect((await store.getFlag('default', 'f7')).defaultVariant?.key).toBe('b');
  });
});
