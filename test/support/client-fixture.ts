import { expectStatus, type ApiClient } from './server';

/**
 * Seeds the fixture every client test uses, through the public
 * management API with plain fetch, in `default` and in `ns1`:
 *
 * segments
 *   segment1          ALL  string fizz eq buzz
 *   segment_any       ANY  number age gte 18 | boolean beta true
 *   everyone          ALL  (no constraints)
 *   segment_entity    ALL  entityId eq vip-user
 *   segment_datetime  ALL  datetime signup gte 2025-01-01T00:00:00Z
 *
 * variant flags (all single-segment rules, integer splits summing to 100)
 *   flag1                 rule 1 segment1 → 100% variant1 (ns1: variant2); rule 2 everyone → 50/50 variant1/variant2
 *   flag_number           rule everyone → 100% "42"
 *   flag_json             rule everyone → 100% "json_variant" (attachment JSON object)
 *   flag_default_variant  default variant "dv_default", no rules
 *   flag_disabled         enabled:false, rule everyone → 100% "off_variant"
 *   flag_any              rule segment_any → 100% "any_match" (no default: no match gives UNKNOWN)
 *   flag_entity           rule segment_entity → 100% "vip"; rule segment_datetime → 100% "recent"
 * boolean flags
 *   flag_boolean          enabled:false; rollout 1 segment1 → true; rollout 2 threshold 50% → true
 *   flag_boolean_on       enabled:true; rollout 1 segment_entity → false
 * ns1 only: ns1_only (variant, rule everyone → 100% "ns1_variant")
 */

export const NAMESPACES = ['default', 'ns1'] as const;
export type Ns = (typeof NAMESPACES)[number];

export const JSON_ATTACHMENT = { color: 'blue', size: 3, tags: ['a', 'b'], nested: { on: true } };

export const VARIANT_FLAGS = ['flag1', 'flag_number', 'flag_json', 'flag_default_variant', 'flag_disabled', 'flag_any', 'flag_entity'];
export const BOOLEAN_FLAGS = ['flag_boolean', 'flag_boolean_on'];

export interface SeededNamespace {
  flag1: {
    variants: { variant1: string; variant2: string };
    rules: { segment1: string; everyone: string };
    /** The 50/50 distributions of rule 2, in creation order: variant1 then variant2. */
    everyoneDistributions: string[];
  };
}

export type Seeded = Record<Ns, SeededNamespace>;

interface VariantSpec {
  key: string;
  attachment?: string;
}

interface RuleSpec {
  segment: string;
  distributions: [variantKey: string, rollout: number][];
}

async function ok<T = any>(res: Promise<{ status: number; body: T; text: string; headers: Headers }>): Promise<T> {
  return expectStatus(await res, 200);
}

export class Seeder {
  constructor(
    readonly api: ApiClient,
    readonly ns: string,
  ) {}

  get p(): string {
    return `/api/v1/namespaces/${this.ns}`;
  }

  async namespace(): Promise<void> {
    if (this.ns !== 'default') await ok(this.api.post('/api/v1/namespaces', { key: this.ns, name: this.ns.toUpperCase() }));
  }

  async segment(key: string, matchType: 'ALL_MATCH_TYPE' | 'ANY_MATCH_TYPE', constraints: { type: string; property: string; operator: string; value: string }[]) {
    await ok(this.api.post(`${this.p}/segments`, { key, name: key, matchType }));
    for (const c of constraints) await ok(this.api.post(`${this.p}/segments/${key}/constraints`, c));
  }

  /** A variant flag with its variants and rules; returns variant ids by key, rule ids, distribution ids per rule. */
  async variantFlag(key: string, opts: { enabled?: boolean; variants: VariantSpec[]; rules?: RuleSpec[]; defaultVariant?: string }) {
    const enabled = opts.enabled ?? true;
    await ok(this.api.post(`${this.p}/flags`, { key, name: key, description: `${key} flag`, type: 'VARIANT_FLAG_TYPE', enabled }));
    const variants: Record<string, string> = {};
    for (const v of opts.variants) {
      const created = await ok(this.api.post(`${this.p}/flags/${key}/variants`, { key: v.key, name: v.key, attachment: v.attachment ?? '' }));
      variants[v.key] = created.id;
    }
    if (opts.defaultVariant) {
      await ok(this.api.put(`${this.p}/flags/${key}`, { name: key, description: `${key} flag`, enabled, defaultVariantId: variants[opts.defaultVariant] }));
    }
    const rules: string[] = [];
    const distributions: string[][] = [];
    for (const [i, r] of (opts.rules ?? []).entries()) {
      const rule = await ok(this.api.post(`${this.p}/flags/${key}/rules`, { segmentKeys: [r.segment], segmentOperator: 'OR_SEGMENT_OPERATOR', rank: i + 1 }));
      rules.push(rule.id);
      const ids: string[] = [];
      for (const [variantKey, rollout] of r.distributions) {
        const d = await ok(this.api.post(`${this.p}/flags/${key}/rules/${rule.id}/distributions`, { variantId: variants[variantKey], rollout }));
        ids.push(d.id);
      }
      distributions.push(ids);
    }
    return { variants, rules, distributions };
  }

  async booleanFlag(key: string, enabled: boolean, rollouts: ({ threshold: { percentage: number; value: boolean } } | { segment: { segmentKeys: string[]; value: boolean } })[]) {
    await ok(this.api.post(`${this.p}/flags`, { key, name: key, description: `${key} flag`, type: 'BOOLEAN_FLAG_TYPE', enabled }));
    for (const [i, r] of rollouts.entries()) {
      const body = 'threshold' in r ? { rank: i + 1, threshold: r.threshold } : { rank: i + 1, segment: { ...r.segment, segmentOperator: 'OR_SEGMENT_OPERATOR' } };
      await ok(this.api.post(`${this.p}/flags/${key}/rollouts`, body));
    }
  }
}

async function seedNamespace(api: ApiClient, ns: Ns): Promise<SeededNamespace> {
  const s = new Seeder(api, ns);
  await s.namespace();
  await s.segment('segment1', 'ALL_MATCH_TYPE', [{ type: 'STRING_COMPARISON_TYPE', property: 'fizz', operator: 'eq', value: 'buzz' }]);
  await s.segment('segment_any', 'ANY_MATCH_TYPE', [
    { type: 'NUMBER_COMPARISON_TYPE', property: 'age', operator: 'gte', value: '18' },
    { type: 'BOOLEAN_COMPARISON_TYPE', property: 'beta', operator: 'true', value: '' },
  ]);
  await s.segment('everyone', 'ALL_MATCH_TYPE', []);
  await s.segment('segment_entity', 'ALL_MATCH_TYPE', [{ type: 'ENTITY_ID_COMPARISON_TYPE', property: 'entityId', operator: 'eq', value: 'vip-user' }]);
  await s.segment('segment_datetime', 'ALL_MATCH_TYPE', [{ type: 'DATETIME_COMPARISON_TYPE', property: 'signup', operator: 'gte', value: '2025-01-01T00:00:00Z' }]);

  const flag1 = await s.variantFlag('flag1', {
    variants: [{ key: 'variant1', attachment: '{"v":1}' }, { key: 'variant2' }],
    rules: [
      { segment: 'segment1', distributions: [[ns === 'ns1' ? 'variant2' : 'variant1', 100]] },
      { segment: 'everyone', distributions: [['variant1', 50], ['variant2', 50]] },
    ],
  });
  await s.variantFlag('flag_number', { variants: [{ key: '42' }], rules: [{ segment: 'everyone', distributions: [['42', 100]] }] });
  await s.variantFlag('flag_json', {
    variants: [{ key: 'json_variant', attachment: JSON.stringify(JSON_ATTACHMENT) }],
    rules: [{ segment: 'everyone', distributions: [['json_variant', 100]] }],
  });
  await s.variantFlag('flag_default_variant', { variants: [{ key: 'dv_default', attachment: '{"d":true}' }, { key: 'dv_other' }], defaultVariant: 'dv_default' });
  await s.variantFlag('flag_disabled', { enabled: false, variants: [{ key: 'off_variant' }], rules: [{ segment: 'everyone', distributions: [['off_variant', 100]] }] });
  await s.variantFlag('flag_any', { variants: [{ key: 'any_match' }], rules: [{ segment: 'segment_any', distributions: [['any_match', 100]] }] });
  await s.variantFlag('flag_entity', {
    variants: [{ key: 'vip' }, { key: 'recent' }],
    rules: [
      { segment: 'segment_entity', distributions: [['vip', 100]] },
      { segment: 'segment_datetime', distributions: [['recent', 100]] },
    ],
  });
  await s.booleanFlag('flag_boolean', false, [
    { segment: { segmentKeys: ['segment1'], value: true } },
    { threshold: { percentage: 50, value: true } },
  ]);
  await s.booleanFlag('flag_boolean_on', true, [{ segment: { segmentKeys: ['segment_entity'], value: false } }]);
  if (ns === 'ns1') {
    await s.variantFlag('ns1_only', { variants: [{ key: 'ns1_variant' }], rules: [{ segment: 'everyone', distributions: [['ns1_variant', 100]] }] });
  }
  return {
    flag1: {
      variants: { variant1: flag1.variants.variant1, variant2: flag1.variants.variant2 },
      rules: { segment1: flag1.rules[0], everyone: flag1.rules[1] },
      everyoneDistributions: flag1.distributions[1],
    },
  };
}

/** Seeds `default` and `ns1`. */
export async function seedClientFixture(api: ApiClient): Promise<Seeded> {
  return { default: await seedNamespace(api, 'default'), ns1: await seedNamespace(api, 'ns1') };
}

/** Flipt's bucketing (`crc32Num`, `internal/server/evaluation/legacy_evaluator.go`), for choosing entity ids with a known outcome. */
const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

export function crc32(text: string): number {
  let c = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) c = CRC_TABLE[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

/** Variant bucket 0..999: crc32(flagKey + entityId) % 1000. */
export const variantBucket = (flagKey: string, entityId: string) => crc32(flagKey + entityId) % 1000;
/** Threshold value 0..99: crc32(entityId + flagKey) % 100. */
export const thresholdValue = (flagKey: string, entityId: string) => crc32(entityId + flagKey) % 100;

/** The first `user-N` id whose outcome satisfies `pred`. */
export function findEntity(pred: (entityId: string) => boolean, prefix = 'user-'): string {
  for (let i = 0; i < 100_000; i++) if (pred(`${prefix}${i}`)) return `${prefix}${i}`;
  throw new Error('no entity id found');
}
