import { describe, expect, it } from 'vitest';
import { PennonError, type Page } from '../../../internal/core';
import type { ListParams, Store } from '../../../internal/storage';
import { backends } from '../../support/backends';
import {
  ALL,
  constraintInput,
  expectPennonError,
  flagInput,
  flagUpdate,
  flagWithSegment,
  ruleInput,
  segmentInput,
  useStore,
  variantInput,
} from '../../support/store';

/**
 * The storage contract, part 3: cascades, paging, revisions and transactions.
 * Semantics: Flipt's SQL store (`internal/storage/sql/common/*.go`).
 */
describe.each(backends())('storage contract on $name: cascades, paging, revisions, transactions', (backend) => {
  const t = useStore(backend);

  /** Rows left in a table, read with raw Kysely so that nothing hides behind the store's reads. */
  async function rowsWhere(table: 'distributions' | 'rule_segments' | 'rollout_segments' | 'variants' | 'rules' | 'rollouts' | 'constraints' | 'segments' | 'flags', column: string, values: string[]) {
    if (values.length === 0) return 0;
    const row = await t.connection.db
      .selectFrom(table)
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where(column as never, 'in', values as never)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  /** A variant flag with variants, a rule with distributions, plus a boolean flag with rollouts. */
  async function populate(ns: string) {
    const { variants } = await flagWithSegment(t.store, ns, 'f', ['a', 'b']);
    await t.store.createConstraint(ns, 'seg', constraintInput());
    const rule = await t.store.createRule(ns, 'f', 1, ruleInput('seg'));
    const d1 = await t.store.createDistribution(ns, 'f', rule.id, { variantId: variants[0].id, rollout: 50 });
    const d2 = await t.store.createDistribution(ns, 'f', rule.id, { variantId: variants[1].id, rollout: 50 });
    await t.store.updateFlag(ns, 'f', flagUpdate({ defaultVariantId: variants[0].id }));
    await t.store.createFlag(ns, flagInput('b', { type: 'BOOLEAN_FLAG_TYPE' }));
    const r1 = await t.store.createRollout(ns, 'b', 1, {
      description: '',
      threshold: null,
      segment: { segmentKeys: ['seg'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: true },
    });
    const r2 = await t.store.createRollout(ns, 'b', 2, { description: '', segment: null, threshold: { percentage: 50, value: true } });
    return { variants, rule, distributions: [d1, d2], rollouts: [r1, r2] };
  }

  describe('cascades', () => {
    it('deleting a flag removes its variants, rules, distributions and rollouts', async () => {
      const p = await populate('default');
      await t.store.deleteFlag('default', 'f');
      await t.store.deleteFlag('default', 'b');
      expect(await rowsWhere('variants', 'id', p.variants.map((v) => v.id))).toBe(0);
      expect(await rowsWhere('rules', 'id', [p.rule.id])).toBe(0);
      expect(await rowsWhere('rule_segments', 'rule_id', [p.rule.id])).toBe(0);
      expect(await rowsWhere('distributions', 'id', p.distributions.map((d) => d.id))).toBe(0);
      expect(await rowsWhere('rollouts', 'id', p.rollouts.map((r) => r.id))).toBe(0);
      expect(await rowsWhere('rollout_segments', 'rollout_id', p.rollouts.map((r) => r.id))).toBe(0);

      // A re-created flag of the same key starts empty, and the segment is free again.
      const again = await t.store.createFlag('default', flagInput('f'));
      expect(again.variants).toEqual([]);
      expect((await t.store.getFlag('default', 'f')).variants).toEqual([]);
      expect(await t.store.listRules('default', 'f', ALL)).toEqual({ items: [], total: 0, next: null });
      await t.store.createFlag('default', flagInput('b', { type: 'BOOLEAN_FLAG_TYPE' }));
      expect(await t.store.listRollouts('default', 'b', ALL)).toEqual({ items: [], total: 0, next: null });
      await expectPennonError(t.store.getRule('default', 'f', p.rule.id), 'not_found', `rule "default/${p.rule.id}" not found`);
      await t.store.deleteSegment('default', 'seg');
      await expectPennonError(t.store.getSegment('default', 'seg'), 'not_found', 'segment "default/seg" not found');
    });

    it('deleting a variant removes its distributions and clears the default variant', async () => {
      const p = await populate('default');
      const [a, b] = p.variants;
      await t.store.deleteVariant('default', 'f', b.id);
      let flag = await t.store.getFlag('default', 'f');
      expect(flag.defaultVariant).toEqual(a);
      expect((await t.store.getRule('default', 'f', p.rule.id)).distributions).toEqual([p.distributions[0]]);

      await t.store.deleteVariant('default', 'f', a.id);
      flag = await t.store.getFlag('default', 'f');
      expect(flag.variants).toEqual([]);
      expect(flag.defaultVariant).toBeNull();
      expect((await t.store.getRule('default', 'f', p.rule.id)).distributions).toEqual([]);
      expect(await rowsWhere('distributions', 'id', p.distributions.map((d) => d.id))).toBe(0);
      // The default stays cleared even when a variant of the same key comes back.
      await t.store.createVariant('default', 'f', variantInput('a'));
      expect((await t.store.getFlag('default', 'f')).defaultVariant).toBeNull();
    });

    it('force-deleting a namespace removes everything in it and nothing elsewhere', async () => {
      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      const doomed = await populate('team');
      const kept = await populate('default');
      await t.store.deleteNamespace('team', true);

      await expectPennonError(t.store.getNamespace('team'), 'not_found', 'namespace "team" not found');
      for (const table of ['flags', 'variants', 'segments', 'constraints', 'rules', 'rollouts'] as const) {
        expect(await rowsWhere(table, 'namespace_key', ['team']), table).toBe(0);
      }
      expect(await rowsWhere('distributions', 'id', doomed.distributions.map((d) => d.id))).toBe(0);
      expect(await rowsWhere('rule_segments', 'rule_id', [doomed.rule.id])).toBe(0);
      expect(await rowsWhere('rollout_segments', 'rollout_id', doomed.rollouts.map((r) => r.id))).toBe(0);

      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      expect((await t.store.listFlags('team', ALL)).total).toBe(0);
      expect((await t.store.listSegments('team', ALL)).total).toBe(0);

      expect((await t.store.listFlags('default', ALL)).total).toBe(2);
      expect((await t.store.getRule('default', 'f', kept.rule.id)).distributions).toEqual(kept.distributions);
      expect((await t.store.listRollouts('default', 'b', ALL)).items).toEqual(kept.rollouts);
      expect((await t.store.getSegment('default', 'seg')).constraints).toHaveLength(1);
    });
  });

  describe('paging', () => {
    interface Kind {
      name: string;
      /** Creates five items in a non-alphabetical order; returns their keys/ids in list order. */
      setup(store: Store): Promise<string[]>;
      list(store: Store, params: ListParams): Promise<Page<{ key?: string; id?: string }>>;
    }
    const CREATION_ORDER = ['k3', 'k1', 'k5', 'k2', 'k4'];
    const kinds: Kind[] = [
      {
        name: 'namespaces',
        async setup(store) {
          for (const key of CREATION_ORDER) await store.createNamespace({ key, name: key, description: '' });
          return ['default', ...CREATION_ORDER];
        },
        list: (store, params) => store.listNamespaces(params),
      },
      {
        name: 'flags',
        async setup(store) {
          for (const key of CREATION_ORDER) await store.createFlag('default', flagInput(key));
          return CREATION_ORDER;
        },
        list: (store, params) => store.listFlags('default', params),
      },
      {
        name: 'segments',
        async setup(store) {
          for (const key of CREATION_ORDER) await store.createSegment('default', key, segmentInput());
          return CREATION_ORDER;
        },
        list: (store, params) => store.listSegments('default', params),
      },
      {
        name: 'rules',
        async setup(store) {
          await flagWithSegment(store, 'default', 'f');
          // Each new rule goes first: list order (by rank) is the reverse of creation.
          const ids: string[] = [];
          for (let i = 0; i < 5; i++) ids.unshift((await store.createRule('default', 'f', 1, ruleInput('seg'))).id);
          return ids;
        },
        list: (store, params) => store.listRules('default', 'f', params),
      },
      {
        name: 'rollouts',
        async setup(store) {
          await store.createFlag('default', flagInput('b', { type: 'BOOLEAN_FLAG_TYPE' }));
          const ids: string[] = [];
          for (let i = 1; i <= 5; i++) {
            ids.push((await store.createRollout('default', 'b', i, { description: '', segment: null, threshold: { percentage: i, value: true } })).id);
          }
          return ids;
        },
        list: (store, params) => store.listRollouts('default', 'b', params),
      },
    ];

    it.each(kinds)('pages $name with limit/offset, next page (offset and first key/id) and total; limit 0 means all', async (kind) => {
      const all = await kind.setup(t.store);
      const n = all.length;
      const ids = async (params: ListParams) => {
        const page = await kind.list(t.store, params);
        return { ids: page.items.map((i) => i.key ?? i.id), total: page.total, next: page.next };
      };
      expect(await ids({ limit: 0, offset: 0 })).toEqual({ ids: all, total: n, next: null });
      expect(await ids({ limit: 2, offset: 0 })).toEqual({ ids: all.slice(0, 2), total: n, next: { offset: 2, key: all[2] } });
      expect(await ids({ limit: 2, offset: 2 })).toEqual({ ids: all.slice(2, 4), total: n, next: { offset: 4, key: all[4] } });
      expect(await ids({ limit: 2, offset: 4 })).toEqual({ ids: all.slice(4), total: n, next: null });
      expect(await ids({ limit: n, offset: 0 })).toEqual({ ids: all, total: n, next: null });
      expect(await ids({ limit: n - 1, offset: 0 })).toEqual({ ids: all.slice(0, n - 1), total: n, next: { offset: n - 1, key: all[n - 1] } });
      expect(await ids({ limit: 1000, offset: 1 })).toEqual({ ids: all.slice(1), total: n, next: null });
      expect(await ids({ limit: 0, offset: 3 })).toEqual({ ids: all.slice(3), total: n, next: null });
      expect(await ids({ limit: 2, offset: n + 10 })).toEqual({ ids: [], total: n, next: null });
    });

    it('counts only the scope asked for', async () => {
      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      await t.store.createFlag('default', flagInput('f'));
      await t.store.createFlag('team', flagInput('f'));
      await t.store.createFlag('team', flagInput('g'));
      expect((await t.store.listFlags('default', ALL)).total).toBe(1);
      expect((await t.store.listFlags('team', { limit: 1, offset: 0 })).total).toBe(2);
      expect(await t.store.listFlags('nope', ALL)).toEqual({ items: [], total: 0, next: null });
    });
  });

  describe('revisions', () => {
    it('changes on every write in the namespace, and only there', async () => {
      await t.store.createNamespace({ key: 'other', name: 'Other', description: '' });
      const seen = new Set<string>();
      const otherBefore = await t.store.getRevision('other');
      expect(otherBefore).not.toBeNull();
      let last = await t.store.getRevision('default');
      expect(typeof last).toBe('string');
      seen.add(last!);
      const ids: Record<string, string> = {};

      const writes: [string, () => Promise<unknown>][] = [
        ['updateNamespace', () => t.store.updateNamespace({ key: 'default', name: 'D', description: '' })],
        ['createFlag', () => t.store.createFlag('default', flagInput('f'))],
        ['createVariant', async () => (ids.v = (await t.store.createVariant('default', 'f', variantInput('v'))).id)],
        ['updateVariant', () => t.store.updateVariant('default', 'f', ids.v, variantInput('v', { name: 'x' }))],
        ['updateFlag', () => t.store.updateFlag('default', 'f', flagUpdate({ defaultVariantId: ids.v, metadata: { a: 1 } }))],
        ['createSegment', () => t.store.createSegment('default', 'seg', segmentInput())],
        ['updateSegment', () => t.store.updateSegment('default', 'seg', segmentInput({ name: 'x' }))],
        ['createConstraint', async () => (ids.c = (await t.store.createConstraint('default', 'seg', constraintInput())).id)],
        ['updateConstraint', () => t.store.updateConstraint('default', 'seg', ids.c, constraintInput({ value: 'us' }))],
        ['deleteConstraint', () => t.store.deleteConstraint('default', 'seg', ids.c)],
        ['createRule', async () => (ids.r1 = (await t.store.createRule('default', 'f', 1, ruleInput('seg'))).id)],
        ['createRule 2', async () => (ids.r2 = (await t.store.createRule('default', 'f', 2, ruleInput('seg'))).id)],
        ['updateRule', () => t.store.updateRule('default', 'f', ids.r1, ruleInput('seg'))],
        ['orderRules', () => t.store.orderRules('default', 'f', [ids.r2, ids.r1])],
        ['createDistribution', async () => (ids.d = (await t.store.createDistribution('default', 'f', ids.r1, { variantId: ids.v, rollout: 50 })).id)],
        ['updateDistribution', () => t.store.updateDistribution('default', 'f', ids.r1, ids.d, { variantId: ids.v, rollout: 25 })],
        ['deleteDistribution', () => t.store.deleteDistribution('default', 'f', ids.r1, ids.d, ids.v)],
        ['deleteRule', () => t.store.deleteRule('default', 'f', ids.r2)],
        ['createFlag boolean', () => t.store.createFlag('default', flagInput('b', { type: 'BOOLEAN_FLAG_TYPE' }))],
        ['createRollout', async () => (ids.o1 = (await t.store.createRollout('default', 'b', 1, { description: '', segment: null, threshold: { percentage: 5, value: true } })).id)],
        ['createRollout 2', async () => (ids.o2 = (await t.store.createRollout('default', 'b', 2, { description: '', segment: null, threshold: { percentage: 6, value: true } })).id)],
        ['updateRollout', () => t.store.updateRollout('default', 'b', ids.o1, { description: 'x', segment: null, threshold: { percentage: 7, value: false } })],
        ['orderRollouts', () => t.store.orderRollouts('default', 'b', [ids.o2, ids.o1])],
        ['deleteRollout', () => t.store.deleteRollout('default', 'b', ids.o1)],
        ['deleteVariant', () => t.store.deleteVariant('default', 'f', ids.v)],
        ['deleteRule last', () => t.store.deleteRule('default', 'f', ids.r1)],
        ['deleteSegment', () => t.store.deleteSegment('default', 'seg')],
        ['deleteFlag', () => t.store.deleteFlag('default', 'f')],
        ['transaction', () => t.store.transaction(async (tx) => tx.createFlag('default', flagInput('in-tx')))],
      ];
      for (const [name, write] of writes) {
        await write();
        const now = await t.store.getRevision('default');
        expect(now, `revision after ${name}`).not.toBeNull();
        expect(seen.has(now!), `revision after ${name} (${now}) was seen before`).toBe(false);
        seen.add(now!);
        last = now;
      }
      expect(await t.store.getRevision('other')).toBe(otherBefore);

      await t.store.createFlag('other', flagInput('f'));
      await t.store.deleteFlag('other', 'f');
      expect(await t.store.getRevision('default')).toBe(last);
      expect(await t.store.getRevision('other')).not.toBe(otherBefore);
    });

    it('is stable without writes, null for a missing namespace, new after delete and re-create', async () => {
      const first = await t.store.getRevision('default');
      await t.store.getFlag('default', 'x').catch(() => undefined);
      await t.store.listFlags('default', ALL);
      expect(await t.store.getRevision('default')).toBe(first);
      expect(await t.store.getRevision('nope')).toBeNull();

      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      const created = await t.store.getRevision('team');
      expect(created).not.toBeNull();
      await t.store.deleteNamespace('team', false);
      expect(await t.store.getRevision('team')).toBeNull();
      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      const recreated = await t.store.getRevision('team');
      expect(recreated).not.toBeNull();
      expect(recreated).not.toBe(created);

      await t.store.createFlag('team', flagInput('f'));
      const afterWrite = await t.store.getRevision('team');
      await t.store.deleteNamespace('team', true);
      await t.store.createNamespace({ key: 'team', name: 'Team', description: '' });
      const third = await t.store.getRevision('team');
      expect(new Set([created, recreated, afterWrite, third]).size).toBe(4);
    });
  });

  describe('transactions', () => {
    it('makes none of its writes visible when the function throws', async () => {
      const before = { def: await t.store.getRevision('default'), ns: await t.store.getNamespace('default') };
      const boom = new Error('boom');
      let reached = false;
      const outcome = await t.store
        .transaction(async (tx) => {
          await tx.updateNamespace({ key: 'default', name: 'Changed', description: 'changed' });
          await tx.createFlag('default', flagInput('f'));
          const v = await tx.createVariant('default', 'f', variantInput('v'));
          await tx.updateFlag('default', 'f', flagUpdate({ defaultVariantId: v.id }));
          await tx.createSegment('default', 'seg', segmentInput());
          await tx.createConstraint('default', 'seg', constraintInput());
          await tx.createRule('default', 'f', 1, ruleInput('seg'));
          await tx.createNamespace({ key: 'team', name: 'Team', description: '' });
          await tx.createFlag('team', flagInput('g'));
          // Inside the transaction its own writes are visible.
          expect((await tx.getFlag('default', 'f')).defaultVariant?.id).toBe(v.id);
          reached = true;
          throw boom;
        })
        .then(
          () => 'resolved',
          (err: unknown) => err,
        );
      expect(reached).toBe(true);
      expect(outcome === boom || (outcome as Error).cause === boom, `rejected with ${String(outcome)}`).toBe(true);

      expect(await t.store.getNamespace('default')).toEqual(before.ns);
      expect(await t.store.getRevision('default')).toBe(before.def);
      await expectPennonError(t.store.getFlag('default', 'f'), 'not_found', 'flag "default/f" not found');
      expect((await t.store.listSegments('default', ALL)).total).toBe(0);
      await expectPennonError(t.store.getNamespace('team'), 'not_found', 'namespace "team" not found');
      expect(await t.store.getRevision('team')).toBeNull();
      expect(await rowsWhere('variants', 'namespace_key', ['default'])).toBe(0);
      expect(await rowsWhere('rules', 'namespace_key', ['default'])).toBe(0);
      expect(await rowsWhere('constraints', 'namespace_key', ['default'])).toBe(0);
    });

    it('rolls back and passes on a store error raised midway', async () => {
      await t.store.createFlag('default', flagInput('dup'));
      const err = await expectPennonError(
        t.store.transaction(async (tx) => {
          await tx.createFlag('default', flagInput('f'));
          await tx.createSegment('default', 'seg', segmentInput());
          await tx.createFlag('default', flagInput('dup'));
          return 'unreachable';
        }),
        'invalid',
        'flag "default/dup" is not unique',
      );
      expect(err).toBeInstanceOf(PennonError);
      await expectPennonError(t.store.getFlag('default', 'f'), 'not_found', 'flag "default/f" not found');
      await expectPennonError(t.store.getSegment('default', 'seg'), 'not_found', 'segment "default/seg" not found');
      expect((await t.store.listFlags('default', ALL)).items.map((f) => f.key)).toEqual(['dup']);
    });

    it('makes all of its writes visible when the function succeeds, and returns its value', async () => {
      const before = await t.store.getRevision('default');
      const result = await t.store.transaction(async (tx) => {
        await tx.createFlag('default', flagInput('f'));
        const v = await tx.createVariant('default', 'f', variantInput('v'));
        await tx.createSegment('default', 'seg', segmentInput());
        const rule = await tx.createRule('default', 'f', 1, ruleInput('seg'));
        await tx.createDistribution('default', 'f', rule.id, { variantId: v.id, rollout: 100 });
        await tx.createNamespace({ key: 'team', name: 'Team', description: '' });
        await tx.createFlag('team', flagInput('g'));
        return { ruleId: rule.id, variantId: v.id };
      });
      const flag = await t.store.getFlag('default', 'f');
      expect(flag.variants.map((v) => v.id)).toEqual([result.variantId]);
      const rule = await t.store.getRule('default', 'f', result.ruleId);
      expect(rule).toMatchObject({ rank: 1, segmentKeys: ['seg'] });
      expect(rule.distributions).toMatchObject([{ variantId: result.variantId, rollout: 100 }]);
      expect((await t.store.getFlag('team', 'g')).key).toBe('g');
      expect(await t.store.getRevision('default')).not.toBe(before);
    });
  });
});
