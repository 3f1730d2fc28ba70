import { describe, expect, it } from 'vitest';
import { SYSTEM_ORIGIN, type AuditEvent, type AuditOrigin } from '../../../internal/core';
import type { Store } from '../../../internal/storage';
import { backends } from '../../support/backends';
import { constraintInput, flagInput, flagUpdate, ruleInput, segmentInput, useStore, variantInput } from '../../support/store';

/**
 * The audit trail's write side on every database: each kind of change is exactly one event with
 * the object before and after, written in the change's transaction; queried newest first with
 * filters and paging; retention; the outbox and its leases.
 */

const ALICE: AuditOrigin = { actor: { authentication: 'token', id: 'tok-1', name: 'alice' }, source: 'api', requestId: 'req-1' };

/** The events written since `after` (exclusive), oldest first. */
async function eventsSince(store: Store, seen: Set<string>): Promise<AuditEvent[]> {
  const all = await store.listAuditEvents({ namespace: null, limit: 1000 });
  const fresh = all.filter((e) => !seen.has(e.id)).reverse();
  for (const e of fresh) seen.add(e.id);
  return fresh;
}

describe.each(backends())('audit trail on $name', (backend) => {
  const t = useStore(backend);

  it('records each kind of change once, with who, before and after', async () => {
    const store = t.store.as(ALICE);
    const seen = new Set<string>();
    const one = async (write: () => Promise<unknown>) => {
      await write();
      const events = await eventsSince(t.store, seen);
      expect(events).toHaveLength(1);
      return events[0];
    };

    let e = await one(() => store.createNamespace({ key: 'shop', name: 'Shop', description: '' }));
    expect(e).toMatchObject({ type: 'namespace', action: 'created', namespace: 'shop', key: 'shop', before: null, actor: ALICE.actor, source: 'api', requestId: 'req-1' });
    expect(e.payload).toMatchObject({ key: 'shop', name: 'Shop' });

    e = await one(() => store.updateNamespace({ key: 'shop', name: 'Shop 2', description: 'd' }));
    expect(e).toMatchObject({ type: 'namespace', action: 'updated', before: { name: 'Shop' }, payload: { name: 'Shop 2' } });

    e = await one(() => store.createFlag('shop', flagInput('checkout', { enabled: false })));
    expect(e).toMatchObject({ type: 'flag', action: 'created', namespace: 'shop', key: 'checkout', before: null, payload: { key: 'checkout', enabled: false } });

    e = await one(() => store.updateFlag('shop', 'checkout', flagUpdate({ enabled: true })));
    expect(e).toMatchObject({ type: 'flag', action: 'updated', key: 'checkout', before: { enabled: false }, payload: { enabled: true } });

    e = await one(() => store.createVariant('shop', 'checkout', variantInput('on')));
    const variantId = (e.payload as { id: string }).id;
    expect(e).toMatchObject({ type: 'variant', action: 'created', key: 'checkout', objectId: variantId, payload: { key: 'on' } });
    e = await one(() => store.updateVariant('shop', 'checkout', variantId, variantInput('on', { name: 'On' })));
    expect(e).toMatchObject({ type: 'variant', action: 'updated', objectId: variantId, before: { name: 'Variant on' }, payload: { name: 'On' } });

    e = await one(() => store.createSegment('shop', 'beta', segmentInput()));
    expect(e).toMatchObject({ type: 'segment', action: 'created', key: 'beta' });
    e = await one(() => store.createConstraint('shop', 'beta', constraintInput()));
    const constraintId = (e.payload as { id: string }).id;
    expect(e).toMatchObject({ type: 'constraint', action: 'created', key: 'beta', objectId: constraintId });
    e = await one(() => store.updateConstraint('shop', 'beta', constraintId, constraintInput({ value: 'x' })));
    expect(e).toMatchObject({ type: 'constraint', action: 'updated', payload: { value: 'x' } });

    const r1 = await one(() => store.createRule('shop', 'checkout', 1, ruleInput('beta')));
    const r2 = await one(() => store.createRule('shop', 'checkout', 2, ruleInput('beta')));
    const [id1, id2] = [r1.objectId!, r2.objectId!];
    expect(r1).toMatchObject({ type: 'rule', action: 'created', key: 'checkout', payload: { rank: 1 } });
    e = await one(() => store.orderRules('shop', 'checkout', [id2, id1]));
    expect(e).toMatchObject({ type: 'rule', action: 'reordered', key: 'checkout', before: { ids: [id1, id2] }, payload: { ids: [id2, id1] } });

    e = await one(() => store.createDistribution('shop', 'checkout', id1, { variantId, rollout: 50 }));
    const distributionId = e.objectId!;
    expect(e).toMatchObject({ type: 'distribution', action: 'created', payload: { rollout: 50 } });
    e = await one(() => store.updateDistribution('shop', 'checkout', id1, distributionId, { variantId, rollout: 70 }));
    expect(e).toMatchObject({ type: 'distribution', action: 'updated', before: { rollout: 50 }, payload: { rollout: 70 } });
    e = await one(() => store.deleteDistribution('shop', 'checkout', id1, distributionId, variantId));
    expect(e).toMatchObject({ type: 'distribution', action: 'deleted', before: { rollout: 70 }, payload: null });

    e = await one(() => store.createRollout('shop', 'checkout', 1, { description: 'half', segment: null, threshold: { percentage: 50, value: true } }));
    const rolloutId = e.objectId!;
    expect(e).toMatchObject({ type: 'rollout', action: 'created' });
    e = await one(() => store.deleteRollout('shop', 'checkout', rolloutId));
    expect(e).toMatchObject({ type: 'rollout', action: 'deleted', before: { description: 'half' } });

    e = await one(() => store.deleteRule('shop', 'checkout', id2));
    expect(e).toMatchObject({ type: 'rule', action: 'deleted', objectId: id2 });
    e = await one(() => store.deleteConstraint('shop', 'beta', constraintId));
    expect(e).toMatchObject({ type: 'constraint', action: 'deleted', before: { value: 'x' } });
    e = await one(() => store.deleteVariant('shop', 'checkout', variantId));
    expect(e).toMatchObject({ type: 'variant', action: 'deleted', before: { key: 'on' } });
    e = await one(() => store.deleteFlag('shop', 'checkout'));
    expect(e).toMatchObject({ type: 'flag', action: 'deleted', before: { key: 'checkout', enabled: true }, payload: null });
    e = await one(() => store.deleteSegment('shop', 'beta'));
    expect(e).toMatchObject({ type: 'segment', action: 'deleted' });
    e = await one(() => store.deleteNamespace('shop', false));
    expect(e).toMatchObject({ type: 'namespace', action: 'deleted', before: { key: 'shop' } });
  });

  it('records tokens without their hash: created, expired, deleted, and cleaned up by the system', async () => {
    const seen = new Set<string>();
    const token = await t.store.as(ALICE).createAuthentication({ method: 'METHOD_TOKEN', hashedToken: 'secret-hash', metadata: { 'io.flipt.auth.token.name': 'ci' }, expiresAt: null });
    await t.store.as(ALICE).expireAuthentication(token.id, 1);
    await t.store.as(SYSTEM_ORIGIN).deleteExpiredAuthentications('METHOD_TOKEN', Date.now() * 1000, 10);
    const events = await eventsSince(t.store, seen);
    expect(events.map((e) => `${e.type}:${e.action}:${e.source}`)).toEqual(['token:created:api', 'token:expired:api', 'token:deleted:system']);
    expect(JSON.stringify(events)).not.toContain('secret-hash');
    expect(events[1]).toMatchObject({ key: token.id, before: { expiresAt: null }, payload: { expiresAt: 1 } });
  });

  it('records a standalone event (a denied request) as its origin\'s, with no change beside it', async () => {
    const seen = new Set<string>();
    await eventsSince(t.store, seen);
    const revisionBefore = (await t.store.listRevisions()).get('default');
    await t.store.as(ALICE).recordAuditEvent({ type: 'authorization', action: 'denied', namespace: 'default', key: 'CreateFlag', payload: { operation: 'CreateFlag', needed: 'editor', held: 'viewer' } });
    const [event, ...rest] = await eventsSince(t.store, seen);
    expect(rest).toEqual([]);
    expect(event).toMatchObject({ type: 'authorization', action: 'denied', namespace: 'default', key: 'CreateFlag', objectId: null, actor: ALICE.actor, source: 'api', requestId: 'req-1', before: null, payload: { needed: 'editor', held: 'viewer' } });
    expect((await t.store.listRevisions()).get('default')).toBe(revisionBefore);
    expect(await t.store.listAuditEvents({ namespace: null, types: ['authorization'], actions: ['denied'], limit: 10 })).toHaveLength(1);
  });

  it('a write that fails leaves no event, and a transaction of several writes records each', async () => {
    await t.store.createFlag('default', flagInput('a'));
    const before = (await t.store.listAuditEvents({ namespace: null, limit: 100 })).length;
    await expect(t.store.createFlag('default', flagInput('a'))).rejects.toThrow();
    await expect(
      t.store.as(ALICE).transaction(async (tx) => {
        await tx.createFlag('default', flagInput('b'));
        await tx.createFlag('default', flagInput('c'));
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow();
    expect(await t.store.listAuditEvents({ namespace: null, limit: 100 })).toHaveLength(before);
    expect((await t.store.listFlags('default', { limit: 0, offset: 0 })).items.map((f) => f.key)).toEqual(['a']);

    await t.store.as(ALICE).transaction(async (tx) => {
      await tx.createFlag('default', flagInput('b'));
      await tx.updateFlag('default', 'b', flagUpdate({ enabled: true }));
    });
    const [updated, created] = await t.store.listAuditEvents({ namespace: 'default', limit: 2 });
    expect([created.action, updated.action, created.actor.name, updated.actor.name]).toEqual(['created', 'updated', 'alice', 'alice']);
  });

  it('an import is one summary event with counts, plus an event per flag and segment', async () => {
    await t.store.as({ ...ALICE, source: 'cli' }).createBatch('default', {
      segments: [{ key: 's1', input: segmentInput(), constraints: [constraintInput()] }],
      flags: [
        { input: flagInput('f1'), variants: [variantInput('v1'), variantInput('v2')], defaultVariant: null, rules: [{ input: ruleInput('s1'), distributions: [{ variant: 0, rollout: 100 }] }], rollouts: [] },
        { input: flagInput('f2', { type: 'BOOLEAN_FLAG_TYPE' }), variants: [], defaultVariant: null, rules: [], rollouts: [] },
      ],
    });
    const events = (await t.store.listAuditEvents({ namespace: 'default', limit: 10 })).reverse();
    expect(events.map((e) => `${e.type}:${e.key}`)).toEqual(['flag:f1', 'flag:f2', 'segment:s1', 'import:']);
    expect(events[3].payload).toEqual({ flags: 2, segments: 1, variants: 2, rules: 1, rollouts: 0, constraints: 1 });
    expect(events.every((e) => e.source === 'cli')).toBe(true);
  });

  it('filters by namespace, type, action, key, actor and time, newest first, paged by id', async () => {
    await t.store.createNamespace({ key: 'other', name: 'Other', description: '' });
    for (let i = 0; i < 5; i++) await t.store.as(ALICE).createFlag('default', flagInput(`f${i}`));
    await t.store.createFlag('other', flagInput('f0'));
    await t.store.as(ALICE).updateFlag('default', 'f0', flagUpdate({ enabled: true }));

    const inDefault = await t.store.listAuditEvents({ namespace: 'default', limit: 100 });
    expect(inDefault.map((e) => `${e.action}:${e.key}`)).toEqual(['updated:f0', 'created:f4', 'created:f3', 'created:f2', 'created:f1', 'created:f0']);
    expect((await t.store.listAuditEvents({ namespace: 'default', key: 'f0', limit: 100 })).map((e) => e.action)).toEqual(['updated', 'created']);
    expect((await t.store.listAuditEvents({ namespace: 'default', actions: ['updated'], limit: 100 })).length).toBe(1);
    expect((await t.store.listAuditEvents({ namespace: null, key: 'f0', types: ['flag'], limit: 100 })).length).toBe(3);
    expect((await t.store.listAuditEvents({ namespace: null, actor: 'alice', limit: 100 })).length).toBe(6);
    expect((await t.store.listAuditEvents({ namespace: null, actor: 'tok-1', limit: 100 })).length).toBe(6);

    const page1 = await t.store.listAuditEvents({ namespace: 'default', limit: 4 });
    const page2 = await t.store.listAuditEvents({ namespace: 'default', limit: 4, before: page1[3].id });
    expect([...page1, ...page2].map((e) => e.id)).toEqual(inDefault.map((e) => e.id));

    const middle = inDefault[3].timestamp;
    expect((await t.store.listAuditEvents({ namespace: 'default', since: middle, limit: 100 })).length).toBe(4);
    expect((await t.store.listAuditEvents({ namespace: 'default', until: middle, limit: 100 })).length).toBe(2);
  });

  it('retention deletes old events and what of them still waits in the outbox', async () => {
    await t.store.createFlag('default', flagInput('old'));
    const cutoff = (await t.store.listAuditEvents({ namespace: null, limit: 1 }))[0].timestamp + 1;
    await t.store.createFlag('default', flagInput('new'));
    expect(await t.store.deleteAuditEventsBefore(cutoff, 1000)).toEqual({ events: 1, undelivered: 0 });
    expect((await t.store.listAuditEvents({ namespace: null, limit: 100 })).map((e) => e.key)).toEqual(['new']);
    expect(await t.store.deleteAuditEventsBefore(cutoff, 1000)).toEqual({ events: 0, undelivered: 0 });
  });

  it('leases: one holder at a time, taken over once expired or released', async () => {
    expect(await t.store.acquireAuditLease('sink:a', 'one', 100, 200)).toBe(true);
    expect(await t.store.acquireAuditLease('sink:a', 'two', 150, 250)).toBe(false);
    expect(await t.store.acquireAuditLease('sink:a', 'one', 150, 300)).toBe(true);
    expect(await t.store.acquireAuditLease('sink:a', 'two', 301, 400)).toBe(true);
    await t.store.releaseAuditLease('sink:a', 'two');
    expect(await t.store.acquireAuditLease('sink:a', 'one', 302, 500)).toBe(true);
  });
});
