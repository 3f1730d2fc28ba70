import { describe, expect, it } from 'vitest';
import type { Broadcast } from '../../internal/cache';
import { relayWebhookSyncs } from '../../internal/service/cluster-worker';
import type { WebhookEnvironment } from '../../internal/webhook';

/** Two workers' buses as the supervisor links them: what one publishes, the other hears. */
function linkedBuses(): [Broadcast, Broadcast] {
  const handlers: ((text: string) => void)[][] = [[], []];
  const bus = (self: number): Broadcast => ({
    publish: (text) => handlers[1 - self].forEach((h) => h(text)),
    subscribe: (h) => void handlers[self].push(h),
    onRecover: () => undefined,
  });
  return [bus(0), bus(1)];
}

function environments(names: string[]): { map: Map<string, WebhookEnvironment>; syncs: string[] } {
  const syncs: string[] = [];
  const map = new Map<string, WebhookEnvironment>(
    names.map((name) => [name, { name, scm: { type: 'github', webhook: { secret: 's' } }, repository: { key: `k-${name}`, branch: 'main', requestSync: async () => (syncs.push(name), { error: null }) } }]),
  );
  return { map, syncs };
}

describe('relayWebhookSyncs (a webhook reaching one worker fetches in every worker)', () => {
  it("a delivery's sync runs here and in the other worker, for that environment only", async () => {
    const [busA, busB] = linkedBuses();
    const a = environments(['prod', 'staging']);
    const b = environments(['prod', 'staging']);
    const relayedA = relayWebhookSyncs(a.map, busA);
    relayWebhookSyncs(b.map, busB);
    const env = relayedA.get('prod')!;
    expect([env.name, env.repository.key, env.repository.branch, env.scm?.type]).toEqual(['prod', 'k-prod', 'main', 'github']);
    expect(await env.repository.requestSync()).toEqual({ error: null });
    expect(a.syncs).toEqual(['prod']);
    expect(b.syncs).toEqual(['prod']);
  });

  it('ignores what it does not understand (other messages on the same bus, unknown environments)', () => {
    const [busA, busB] = linkedBuses();
    const b = environments(['prod']);
    relayWebhookSyncs(b.map, busB);
    busA.publish('not json');
    busA.publish(JSON.stringify({ origin: 'x', change: { ns: 'default' } }));
    busA.publish(JSON.stringify({ gitSync: 'unknown' }));
    busA.publish(JSON.stringify({ gitSync: 42 }));
    expect(b.syncs).toEqual([]);
  });
});
