import { describe, expect, it } from 'vitest';
import { diffObjects, eventChanges, formatValue } from '../../web/src/lib/audit-diff';
import { actorLabel, describeEvent, relativeTime, sourceLabel } from '../../web/src/lib/audit-words';
import { mergeNewest } from '../../web/src/lib/audit-pages';
import type { AuditEventJson } from '../../internal/wire/audit';

/**
 * The dashboard's reading of an audit event (History, the Audit screen, the console's last
 * change): the fields a change touched, nested objects and lists included; the sentence saying
 * who did what; how long ago; and how a live refresh's first page joins the pages shown.
 */

const T1 = '2026-11-29T10:00:00.000000Z';
const T2 = '2026-11-29T10:05:00.000000Z';

const variant = (id: string, key: string, extra: Record<string, unknown> = {}) => ({ id, key, name: '', description: '', attachment: '', createdAt: T1, updatedAt: T1, ...extra });
const flag = (extra: Record<string, unknown> = {}) => ({
  key: 'checkout',
  name: 'Checkout',
  description: '',
  enabled: false,
  namespaceKey: 'default',
  type: 'VARIANT_FLAG_TYPE',
  createdAt: T1,
  updatedAt: T1,
  variants: [variant('v1', 'blue'), variant('v2', 'green')],
  ...extra,
});

describe('diffObjects', () => {
  it('an update: only the fields that changed, never the timestamps every update moves', () => {
    expect(diffObjects(flag(), flag({ enabled: true, name: 'Checkout v2', updatedAt: T2 }))).toEqual([
      { path: 'name', kind: 'changed', before: 'Checkout', after: 'Checkout v2' },
      { path: 'enabled', kind: 'changed', before: false, after: true },
    ]);
    expect(diffObjects(flag(), flag({ updatedAt: T2 }))).toEqual([]);
  });

  it('follows nested objects down to their fields: added, changed and removed, odd keys quoted', () => {
    const before = flag({ metadata: { team: 'web', owner: 'ann', 'cost.centre': 1 } });
    const after = flag({ metadata: { team: 'growth', 'cost.centre': 2, region: 'eu' } });
    expect(diffObjects(before, after)).toEqual([
      { path: 'metadata.team', kind: 'changed', before: 'web', after: 'growth' },
      { path: 'metadata["cost.centre"]', kind: 'changed', before: 1, after: 2 },
      { path: 'metadata.region', kind: 'added', after: 'eu' },
      { path: 'metadata.owner', kind: 'removed', before: 'ann' },
    ]);
    // A map that appears or goes: its fields, each on its line.
    expect(diffObjects(flag(), flag({ metadata: { team: 'web' } }))).toEqual([{ path: 'metadata.team', kind: 'added', after: 'web' }]);
    expect(diffObjects(flag({ metadata: { team: 'web' } }), flag())).toEqual([{ path: 'metadata.team', kind: 'removed', before: 'web' }]);
  });

  it('matches list items by id, not place: one variant changed is one line; added, removed and reordered ones are said as such', () => {
    const before = flag({ variants: [variant('v1', 'blue'), variant('v2', 'green'), variant('v3', 'red')] });
    const after = flag({ variants: [variant('v2', 'green', { name: 'Green!' }), variant('v1', 'blue'), variant('v4', 'amber')] });
    const changes = diffObjects(before, after);
    expect(changes.map((c) => [c.path, c.kind])).toEqual([
      ['variants[green].name', 'changed'],
      ['variants[amber]', 'added'],
      ['variants[red]', 'removed'],
      ['variants (order)', 'changed'],
    ]);
    expect(changes[3]).toMatchObject({ before: ['blue', 'green'], after: ['green', 'blue'] });
    expect((changes[1].after as { key: string }).key).toBe('amber');
  });

  it('items without a key are named by their place; lists of plain values change whole', () => {
    const rule = (distributions: unknown[], segmentKeys: string[]) => ({ id: 'r1', rank: 1, segmentKeys, distributions });
    const d = (id: string, rollout: number) => ({ id, ruleId: 'r1', variantId: 'v1', rollout, createdAt: T1, updatedAt: T1 });
    expect(diffObjects(rule([d('d1', 50), d('d2', 50)], ['a', 'b']), rule([d('d1', 50), d('d2', 30)], ['a', 'c']))).toEqual([
      { path: 'segmentKeys', kind: 'changed', before: ['a', 'b'], after: ['a', 'c'] },
      { path: 'distributions[2].rollout', kind: 'changed', before: 50, after: 30 },
    ]);
  });

  it('an object replaced by another (a new default variant) is one change, not a change of each of its fields', () => {
    const changes = diffObjects(flag({ defaultVariant: variant('v1', 'blue') }), flag({ defaultVariant: variant('v2', 'green') }));
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ path: 'defaultVariant', kind: 'changed' });
    expect(diffObjects(flag(), flag({ defaultVariant: variant('v1', 'blue') }))).toMatchObject([{ path: 'defaultVariant', kind: 'added' }]);
    expect(diffObjects(flag({ defaultVariant: variant('v1', 'blue') }), flag())).toMatchObject([{ path: 'defaultVariant', kind: 'removed' }]);
  });

  it('a create is the new object’s fields that have a value; a delete, the old one’s', () => {
    const created = diffObjects(null, flag({ description: '', variants: [], metadata: {} }));
    expect(created.map((c) => c.path)).toEqual(['key', 'name', 'enabled', 'namespaceKey', 'type']);
    expect(created.every((c) => c.kind === 'added')).toBe(true);
    const deleted = eventChanges({ before: { id: 'c1', property: 'plan', operator: 'eq', value: 'pro', createdAt: T1 }, payload: null });
    expect(deleted).toEqual([
      { path: 'id', kind: 'removed', before: 'c1' },
      { path: 'property', kind: 'removed', before: 'plan' },
      { path: 'operator', kind: 'removed', before: 'eq' },
      { path: 'value', kind: 'removed', before: 'pro' },
    ]);
    expect(diffObjects(null, null)).toEqual([]);
    expect(diffObjects(null, 7)).toEqual([{ path: 'value', kind: 'added', after: 7 }]);
  });

  it('a type change of a field is a change of the whole value', () => {
    expect(diffObjects({ a: [1] }, { a: { x: 1 } })).toEqual([{ path: 'a', kind: 'changed', before: [1], after: { x: 1 } }]);
    expect(diffObjects({ ids: ['r1', 'r2'] }, { ids: ['r2', 'r1'] })).toEqual([{ path: 'ids', kind: 'changed', before: ['r1', 'r2'], after: ['r2', 'r1'] }]);
  });
});

describe('formatValue', () => {
  it('quotes strings, says none for null, writes objects as compact JSON without their timestamps', () => {
    expect(formatValue('')).toBe('""');
    expect(formatValue('none')).toBe('"none"');
    expect(formatValue(null)).toBe('none');
    expect(formatValue(false)).toBe('false');
    expect(formatValue(12.5)).toBe('12.5');
    expect(formatValue(['a', 'b'])).toBe('["a","b"]');
    expect(formatValue(variant('v1', 'blue'))).toBe('{"id":"v1","key":"blue","name":"","description":"","attachment":""}');
  });
});

const event = (e: Partial<AuditEventJson>): AuditEventJson => ({
  id: 'e1',
  version: '0.2',
  type: 'flag',
  action: 'updated',
  status: 'success',
  metadata: { actor: { authentication: 'token', id: 'tok-1', name: 'alice' } },
  payload: null,
  before: null,
  timestamp: T2,
  namespace: 'default',
  key: 'checkout',
  objectId: null,
  requestId: null,
  source: 'api',
  ...e,
});

describe('describeEvent', () => {
  it('who did what: the token’s name, else its id; anonymous without authentication', () => {
    expect(describeEvent(event({})).sentence).toBe('alice updated flag checkout');
    expect(actorLabel({ authentication: 'token', id: 'tok-1' })).toBe('tok-1');
    expect(actorLabel({ authentication: 'none', ip: '127.0.0.1' })).toBe('anonymous');
    expect(actorLabel({ authentication: 'local' })).toBe('the CLI (on the database)');
    expect(actorLabel({ authentication: 'system' })).toBe('Pennon');
  });

  it('names the part of a flag or segment that changed', () => {
    const anon = { metadata: { actor: { authentication: 'none' } } };
    expect(describeEvent(event({ ...anon, type: 'variant', action: 'created', payload: { key: 'blue' } })).sentence).toBe('anonymous created variant blue of flag checkout');
    expect(describeEvent(event({ type: 'rule', action: 'deleted', before: { rank: 2 } })).sentence).toBe('alice deleted rule 2 of flag checkout');
    expect(describeEvent(event({ type: 'rule', action: 'reordered', payload: { ids: [] } })).sentence).toBe('alice reordered the rules of flag checkout');
    expect(describeEvent(event({ type: 'rollout', action: 'updated', payload: { rank: 1 } })).sentence).toBe('alice updated rollout 1 of flag checkout');
    expect(describeEvent(event({ type: 'distribution', action: 'created', payload: {} })).sentence).toBe('alice created a distribution of flag checkout');
    expect(describeEvent(event({ type: 'constraint', key: 'pro', action: 'created', payload: { property: 'plan' } })).sentence).toBe('alice created a constraint on plan of segment pro');
    expect(describeEvent(event({ type: 'token', key: 'tok-9', action: 'expired', payload: { metadata: { 'io.flipt.auth.token.name': 'ci' } } })).sentence).toBe('alice expired token ci');
    expect(describeEvent(event({ type: 'import', key: '', action: 'created', payload: { flags: 3, segments: 1, rules: 0 } })).sentence).toBe('alice imported 3 flags and 1 segment into namespace default');
  });

  it('says the door as people say it', () => {
    expect(['api', 'grpc', 'dashboard', 'cli'].map(sourceLabel)).toEqual(['API', 'gRPC', 'dashboard', 'CLI']);
  });
});

describe('relativeTime', () => {
  const at = Date.parse(T2);
  it('just now, minutes, hours, yesterday, days, months, years; ahead of the clock too', () => {
    expect(relativeTime(T2, at + 30_000)).toBe('just now');
    expect(relativeTime(T2, at - 30_000)).toBe('just now');
    expect(relativeTime(T2, at + 60_000)).toBe('1 minute ago');
    expect(relativeTime(T2, at + 59 * 60_000)).toBe('59 minutes ago');
    expect(relativeTime(T2, at + 3 * 3600_000)).toBe('3 hours ago');
    expect(relativeTime(T2, at + 30 * 3600_000)).toBe('yesterday');
    expect(relativeTime(T2, at + 5 * 86400_000)).toBe('5 days ago');
    expect(relativeTime(T2, at + 65 * 86400_000)).toBe('2 months ago');
    expect(relativeTime(T2, at + 800 * 86400_000)).toBe('2 years ago');
    expect(relativeTime(T2, at - 2 * 3600_000)).toBe('in 2 hours');
    expect(relativeTime('not a time', at)).toBe('not a time');
  });
});

describe('mergeNewest (a live refresh of a History or the Audit screen)', () => {
  const ev = (id: string) => event({ id });
  it('puts the events not shown yet on top and keeps the pages loaded below', () => {
    const shown = { events: [ev('c'), ev('b'), ev('a')], pageToken: 'after-a' };
    expect(mergeNewest(shown, { events: [ev('e'), ev('d'), ev('c')], nextPageToken: 'after-c' }, 3)).toEqual({ events: ['e', 'd', 'c', 'b', 'a'].map(ev), pageToken: 'after-a' });
    expect(mergeNewest(shown, { events: [ev('c'), ev('b'), ev('a')], nextPageToken: 'after-a' }, 3)).toEqual(shown);
  });

  it('starts again from the new first page when more arrived than a page holds (no gap), or when nothing was shown', () => {
    const shown = { events: [ev('b'), ev('a')], pageToken: '' };
    expect(mergeNewest(shown, { events: [ev('f'), ev('e')], nextPageToken: 'after-e' }, 2)).toEqual({ events: [ev('f'), ev('e')], pageToken: 'after-e' });
    expect(mergeNewest({ events: [], pageToken: '' }, { events: [ev('a')], nextPageToken: '' }, 2)).toEqual({ events: [ev('a')], pageToken: '' });
  });
});
