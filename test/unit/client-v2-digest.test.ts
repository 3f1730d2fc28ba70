import { describe, expect, it } from 'vitest';
import { buildSnapshot } from '../../internal/git';
import { DigestedBodies } from '../../internal/server/routes/client-v2-body';
import { digestedSnapshotSlices, FLIPT_V2_GATE, snapshotSlices } from '../../internal/server/routes/snapshot-json';

/**
 * Flipt v2's snapshot document and its digest (issue 19, item 3): the v1 document with every
 * gate open and `digest` last; the digest is the content's — timestamps left out — so a Git
 * commit elsewhere (which restamps every object) or a write that changes only `updatedAt`
 * keeps it, and any change a client evaluates with moves it.
 */

const features = (variant: string, extra = '') => `namespace: shop
flags:
  - key: colour
    name: Colour
    enabled: true
    variants: [{key: ${variant}, name: V, attachment: {hex: "#fff"}}]
    rules: [{segment: members, distributions: [{variant: ${variant}, rollout: 100}]}]
  - key: checkout
    name: Checkout
    type: BOOLEAN_FLAG_TYPE
    rollouts: [{threshold: {percentage: 50, value: true}}]
${extra}segments:
  - key: members
    name: Members
    constraints: [{type: STRING_COMPARISON_TYPE, property: plan, operator: eq, value: member}]
`;

const shop = (text: string, commit: string, at: number) => buildSnapshot([{ path: 'shop/features.yaml', text }], commit, at).namespaces.get('shop')!.compiled;

function digested(snapshot: ReturnType<typeof shop>, perSlice = 1): { text: string; digest: string } {
  let digest = '';
  const text = [...digestedSnapshotSlices(snapshot, perSlice, (hex) => (digest = hex))].join('');
  return { text, digest };
}

describe('Flipt v2 snapshot digest', () => {
  it('is the v1 document (every gate open) with the digest last, whatever the slicing', () => {
    const snapshot = shop(features('blue'), 'c1', 1_000_000);
    const { text, digest } = digested(snapshot);
    expect(digest).toMatch(/^[0-9a-f]{40}$/);
    const parsed = JSON.parse(text);
    expect(Object.keys(parsed)).toEqual(['namespace', 'flags', 'digest']);
    expect(parsed.digest).toBe(digest);
    expect(text).toBe(`${[...snapshotSlices(snapshot, FLIPT_V2_GATE, 7)].join('').slice(0, -1)},"digest":"${digest}"}`);
    expect(digested(snapshot, 100)).toEqual({ text, digest });
  });

  it('leaves timestamps and revisions out, and moves with anything a client evaluates with', () => {
    const base = digested(shop(features('blue'), 'c1', 1_000_000));
    const restamped = digested(shop(features('blue'), 'c2', 9_000_000));
    expect(restamped.text).not.toBe(base.text);
    expect(restamped.digest).toBe(base.digest);
    expect(digested(shop(features('green'), 'c1', 1_000_000)).digest).not.toBe(base.digest);
    const withFlag = features('blue', '  - key: extra\n    name: Extra\n');
    expect(digested(shop(withFlag, 'c1', 1_000_000)).digest).not.toBe(base.digest);
    expect(digested(shop(features('blue').replace('value: member', 'value: staff'), 'c1', 1_000_000)).digest).not.toBe(base.digest);
  });

  it('is built once per snapshot, its uncompressed form equal to the slices', async () => {
    const bodies = new DigestedBodies();
    const snapshot = shop(features('blue'), 'c1', 1_000_000);
    const [a, b] = await Promise.all([bodies.of(snapshot), bodies.of(snapshot)]);
    expect(a).toBe(b);
    expect(bodies.stats.builds).toBe(1);
    const chunks: Buffer[] = [];
    for await (const chunk of a.stream('identity')) chunks.push(chunk as Buffer);
    const { text, digest } = digested(snapshot);
    expect(Buffer.concat(chunks).toString('utf8')).toBe(text);
    expect([a.digest, a.length('identity')]).toEqual([digest, Buffer.byteLength(text)]);
  });
});
