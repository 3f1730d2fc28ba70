import type { NodeFliptClient } from '@flipt-io/flipt-client-js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectStatus, useServer } from '../../support/server';
import { initClient } from '../../support/clients';
import { Seeder, thresholdValue, variantBucket } from '../../support/client-fixture';

/**
 * Differential test: the server's bucketing against Flipt's own evaluator, the WASM engine
 * embedded in `@flipt-io/flipt-client-js` 0.5.1, fed the server's snapshot over real HTTP.
 * The engine normalises and rounds distribution bounds, so it is an oracle only for integer
 * splits summing to exactly 100 on single-segment rules; every flag here is built that way, on
 * a segment with no constraints. As a third opinion, the server is also checked against Flipt's
 * formula (`crc32Num` in `internal/server/evaluation/legacy_evaluator.go`).
 */

const NS = 'diff';
const ENTITIES_PER_FLAG = 5000;
const CHUNK = 1000;

const SPLITS: Record<string, number[]> = {
  split_50_50: [50, 50],
  split_33_33_34: [33, 33, 34],
  split_10_90: [10, 90],
  split_0_50_50: [0, 50, 50],
  split_25x4: [25, 25, 25, 25],
  split_1_99: [1, 99],
  split_100: [100],
};
/** Boolean flags: threshold percentage; odd ones are enabled with value false, even ones disabled with value true. */
const THRESHOLDS = [0, 1, 37, 50, 70, 100];
const boolKey = (p: number) => `threshold_${p}`;
const boolShape = (i: number) => (i % 2 === 0 ? { enabled: false, value: true } : { enabled: true, value: false });

/** 5,000 ids: ASCII, Latin-1 accents, emoji (astral plane, 4-byte UTF-8) and CJK. */
const ENTITIES: string[] = [
  ...Array.from({ length: 3200 }, (_, i) => `user-${i}`),
  ...Array.from({ length: 600 }, (_, i) => `jürgen-${i}`),
  ...Array.from({ length: 600 }, (_, i) => `🚀${i}🎉`),
  ...Array.from({ length: 500 }, (_, i) => `用户-${i}`),
  ...Array.from({ length: 100 }, (_, i) => `${i}-é\u0301-ß-ø-👩‍💻`),
];

interface Outcome {
  variantKey?: string;
  match?: boolean;
  enabled?: boolean;
  reason: string;
}

/** Flipt's formula (crc32 of flag key + entity id, mod 1000, against the bounds), computed independently of both. */
function formulaVariant(flagKey: string, rollouts: number[], entityId: string): Outcome {
  const bucket = variantBucket(flagKey, entityId);
  let bound = 0;
  for (const [i, r] of rollouts.entries()) {
    if (r <= 0) continue;
    bound += Math.trunc(Math.fround(Math.fround(r) * 10));
    if (bound > bucket) return { variantKey: `v${i}`, match: true, reason: 'MATCH_EVALUATION_REASON' };
  }
  return { variantKey: '', match: false, reason: 'UNKNOWN_EVALUATION_REASON' };
}
function formulaBoolean(flagKey: string, percentage: number, shape: { enabled: boolean; value: boolean }, entityId: string): Outcome {
  return thresholdValue(flagKey, entityId) < percentage ? { enabled: shape.value, reason: 'MATCH_EVALUATION_REASON' } : { enabled: shape.enabled, reason: 'DEFAULT_EVALUATION_REASON' };
}

const pick = (r: Record<string, any>): Outcome =>
  'enabled' in r ? { enabled: r.enabled, reason: r.reason } : { variantKey: r.variantKey, match: r.match, reason: r.reason };

describe('differential: server vs flipt-client-js WASM engine', () => {
  const server = useServer();
  let client: NodeFliptClient;
  const flags: { key: string; kind: 'variant' | 'boolean'; formula: (entityId: string) => Outcome }[] = [];

  beforeAll(async () => {
    const s = new Seeder(server.api, NS);
    await s.namespace();
    await s.segment('everyone', 'ALL_MATCH_TYPE', []);
    for (const [key, rollouts] of Object.entries(SPLITS)) {
      await s.variantFlag(key, {
        variants: rollouts.map((_, i) => ({ key: `v${i}` })),
        rules: [{ segment: 'everyone', distributions: rollouts.map((r, i) => [`v${i}`, r] as [string, number]) }],
      });
      flags.push({ key, kind: 'variant', formula: (id) => formulaVariant(key, rollouts, id) });
    }
    for (const [i, p] of THRESHOLDS.entries()) {
      const shape = boolShape(i);
      await s.booleanFlag(boolKey(p), shape.enabled, [{ threshold: { percentage: p, value: shape.value } }]);
      flags.push({ key: boolKey(p), kind: 'boolean', formula: (id) => formulaBoolean(boolKey(p), p, shape, id) });
    }
    client = await initClient(server.url, NS, 0);
  });
  afterAll(() => {
    client?.close();
  });

  it('the hash helper reproduces hash values pinned from Flipt\'s code', () => {
    expect(variantBucket('foo', '1')).toBe(244);
    expect(variantBucket('flag_001', 'some-fixed-entity-id')).toBe(553);
    expect(variantBucket('über-flag', 'jürgen')).toBe(814);
    expect(variantBucket('flag', '🚀')).toBe(316);
    expect(thresholdValue('test-flag', 'test-entity')).toBe(65);
    expect(thresholdValue('über-flag', 'jürgen')).toBe(2);
    expect(thresholdValue('flag', '🚀')).toBe(87);
    expect(ENTITIES).toHaveLength(ENTITIES_PER_FLAG);
    expect(new Set(ENTITIES).size).toBe(ENTITIES_PER_FLAG);
  });

  it('the client loaded every flag from the server snapshot', () => {
    expect(client.listFlags().map((f) => f.key).sort()).toEqual(flags.map((f) => f.key).sort());
  });

  it(`agrees on every outcome for ${ENTITIES_PER_FLAG} entity ids per flag`, async () => {
    const server_: Outcome[] = [];
    const local: Outcome[] = [];
    const formula: Outcome[] = [];
    const labels: string[] = [];
    const all = flags.flatMap((f) => ENTITIES.map((entityId) => ({ flag: f, entityId })));
    const started = Date.now();
    for (let i = 0; i < all.length; i += CHUNK) {
      const chunk = all.slice(i, i + CHUNK);
      const requests = chunk.map(({ flag, entityId }) => ({ namespaceKey: NS, flagKey: flag.key, entityId, context: {} }));
      const remote = expectStatus(await server.api.post('/evaluate/v1/batch', { requestId: `diff-${i}`, requests }), 200);
      expect(remote.requestId).toBe(`diff-${i}`);
      expect(remote.responses).toHaveLength(chunk.length);
      const mine = client.evaluateBatch(requests.map(({ flagKey, entityId, context }) => ({ flagKey, entityId, context })));
      expect(mine.responses).toHaveLength(chunk.length);
      chunk.forEach(({ flag, entityId }, j) => {
        const r = remote.responses[j];
        const l = mine.responses[j];
        server_.push(pick(r.variantResponse ?? r.booleanResponse ?? r.errorResponse));
        local.push(pick((l.variantEvaluationResponse ?? l.booleanEvaluationResponse ?? l.errorEvaluationResponse) as unknown as Record<string, unknown>));
        formula.push(flag.formula(entityId));
        labels.push(`${flag.key} ${JSON.stringify(entityId)}`);
      });
    }
    const mismatches = labels.flatMap((label, i) => {
      const a = JSON.stringify(server_[i]);
      const b = JSON.stringify(local[i]);
      return a === b ? [] : [`${label}: server ${a} client-js ${b}`];
    });
    const formulaMismatches = labels.flatMap((label, i) => (JSON.stringify(server_[i]) === JSON.stringify(formula[i]) ? [] : [`${label}: server ${JSON.stringify(server_[i])} formula ${JSON.stringify(formula[i])}`]));
    console.log(
      `differential: ${labels.length} comparisons (${flags.length} flags × ${ENTITIES_PER_FLAG} entity ids) server vs client-js, ` +
        `${mismatches.length} disagreements; vs the formula ${formulaMismatches.length}; ${Date.now() - started} ms`,
    );
    expect(labels).toHaveLength(flags.length * ENTITIES_PER_FLAG);
    expect(mismatches.slice(0, 20)).toEqual([]);
    expect(mismatches).toHaveLength(0);
    expect(formulaMismatches.slice(0, 20)).toEqual([]);

    // The comparison is not vacuous: the observed shares follow the configured splits.
    const share = (flagKey: string, pred: (o: Outcome) => boolean) => {
      const idx = labels.map((l, i) => (l.startsWith(`${flagKey} `) ? i : -1)).filter((i) => i >= 0);
      return idx.filter((i) => pred(server_[i])).length / idx.length;
    };
    for (const [key, rollouts] of Object.entries(SPLITS)) {
      rollouts.forEach((r, i) => expect(Math.abs(share(key, (o) => o.variantKey === `v${i}`) - r / 100), `${key} v${i}`).toBeLessThan(0.03));
      expect(share(key, (o) => o.match === true), key).toBe(1);
    }
    for (const [i, p] of THRESHOLDS.entries()) {
      const matched = share(boolKey(p), (o) => o.reason === 'MATCH_EVALUATION_REASON');
      if (p === 0 || p === 100) expect(matched, boolKey(p)).toBe(p / 100);
      else expect(Math.abs(matched - p / 100), boolKey(p)).toBeLessThan(0.03);
      expect(share(boolKey(p), (o) => o.enabled === (o.reason === 'MATCH_EVALUATION_REASON' ? boolShape(i).value : boolShape(i).enabled)), boolKey(p)).toBe(1);
    }
  });
});
