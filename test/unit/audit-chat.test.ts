import { describe, expect, it } from 'vitest';
import { sentence, slackMessage, teamsMessage } from '../../internal/audit/chat';
import { backoffMs } from '../../internal/audit/deliverer';
import type { AuditEvent } from '../../internal/core';

/** The chat formats' sentences, Slack's escaping, and the retry pauses. */

const base: AuditEvent = {
  id: '0190a5b4-0000-7000-8000-000000000001',
  type: 'flag',
  action: 'created',
  namespace: 'shop',
  key: 'checkout-v2',
  objectId: null,
  actor: { authentication: 'token', id: 'tok-1', name: 'alice' },
  source: 'api',
  requestId: 'req-9',
  payload: { key: 'checkout-v2', name: 'Checkout', enabled: false },
  before: null,
  timestamp: 1_714_557_600_000_000,
};
const ev = (over: Partial<AuditEvent>): AuditEvent => ({ ...base, ...over });

describe('chat sentences', () => {
  it.each([
    [ev({}), 'alice created flag checkout-v2 in shop'],
    [ev({ action: 'updated', before: { name: 'Checkout', enabled: false }, payload: { name: 'Checkout', enabled: true } }), 'alice enabled flag checkout-v2 in shop'],
    [ev({ action: 'updated', before: { name: 'Checkout', enabled: true }, payload: { name: 'Checkout', enabled: false } }), 'alice disabled flag checkout-v2 in shop'],
    [ev({ action: 'updated', before: { name: 'Old', enabled: true }, payload: { name: 'New', enabled: true } }), 'alice updated flag checkout-v2 in shop: name "Old" → "New"'],
    [ev({ action: 'updated', before: { name: 'Old', enabled: false }, payload: { name: 'New', enabled: true } }), 'alice enabled flag checkout-v2 in shop, and changed name "Old" → "New"'],
    [ev({ action: 'deleted', payload: null, before: { key: 'checkout-v2' } }), 'alice deleted flag checkout-v2 in shop'],
    [ev({ type: 'variant', objectId: 'v1', payload: { key: 'blue' } }), 'alice created variant blue of flag checkout-v2 in shop'],
    [ev({ type: 'constraint', key: 'beta', action: 'updated', before: { property: 'plan', value: 'pro' }, payload: { property: 'plan', value: 'max' } }), 'alice updated a constraint on plan of segment beta in shop: value "pro" → "max"'],
    [ev({ type: 'rule', action: 'reordered', payload: { ids: ['b', 'a'] } }), 'alice reordered the rules of flag checkout-v2 in shop'],
    [ev({ type: 'distribution', action: 'updated', before: { rollout: 50 }, payload: { rollout: 70 } }), 'alice updated a distribution of flag checkout-v2 in shop: rollout 50 → 70'],
    [ev({ type: 'namespace', key: 'shop', payload: { key: 'shop' } }), 'alice created namespace shop'],
    [ev({ type: 'token', key: 't1', namespace: '', payload: { metadata: { 'io.flipt.auth.token.name': 'ci' } } }), 'alice created token ci'],
    [ev({ type: 'token', action: 'deleted', key: 't1', namespace: '', actor: { authentication: 'system' }, payload: null, before: { metadata: {} } }), 'Pennon deleted token t1'],
    [ev({ type: 'import', key: '', payload: { flags: 12, segments: 1, rules: 0 } }), 'alice imported 12 flags, 1 segment into shop'],
    [ev({ type: 'authorization', action: 'denied', key: 'CreateFlag', payload: { operation: 'CreateFlag', needed: 'editor', held: 'viewer' } }), 'alice was denied CreateFlag in shop (editor role needed)'],
    [ev({ actor: { authentication: 'none' } }), 'someone (authentication off) created flag checkout-v2 in shop'],
    [ev({ actor: { authentication: 'local' }, source: 'cli' }), 'a local user (CLI) created flag checkout-v2 in shop'],
  ])('%#: %s', (event, expected) => {
    expect(sentence(event)).toBe(expected);
  });

  it('Slack escapes what its mrkdwn reserves; Teams carries the same sentence in an Adaptive Card', () => {
    const e = ev({ actor: { authentication: 'token', name: '<alice & bob>' } });
    const slack = slackMessage(e) as any;
    expect(slack.text).toBe('&lt;alice &amp; bob&gt; created flag checkout-v2 in shop');
    expect(slack.blocks[1].elements[0].text).toBe('When: 2024-05-01T10:00:00Z · Source: api · Namespace: shop · Request: req-9 · Event: 0190a5b4-0000-7000-8000-000000000001');
    const teams = teamsMessage(e) as any;
    expect(teams.attachments[0].content.body[0].text).toBe('<alice & bob> created flag checkout-v2 in shop');
    expect(teams.attachments[0].content.body[1].facts).toContainEqual({ title: 'Event', value: e.id });
  });
});

describe('retry pauses', () => {
  const timing = { baseBackoffMs: 250, maxBackoffMs: 15_000 };
  it('full jitter over a window that doubles per attempt, capped at max_backoff_duration', () => {
    expect(backoffMs(1, timing, () => 0.999)).toBe(249);
    expect(backoffMs(3, timing, () => 0.999)).toBe(999);
    expect(backoffMs(10, timing, () => 0.999)).toBe(14_985);
    expect(backoffMs(500, timing, () => 1)).toBe(15_000);
    // Never less than a floor: a sink that is down is not hammered when the draw is 0.
    expect(backoffMs(4, timing, () => 0)).toBe(50);
  });
});
