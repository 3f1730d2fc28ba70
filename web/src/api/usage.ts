import { andList } from '../lib/words';
import { flags } from './flags';
import { rollouts } from './rollouts';
import { rules, segmentKeysOf } from './rules';

/**
 * Which flags use a segment, and where: read through the public API as any client could — the
 * namespace's flags, then each variant flag's rules and each boolean flag's rollouts. Flipt has
 * no call that answers this (its delete only says `segment "ns/key" is in use`), so it costs one
 * request per flag, a few at a time.
 */
export interface SegmentUse {
  flagKey: string;
  flagName: string;
  /** Rules of a variant flag, rollouts of a boolean one. */
  kind: 'rule' | 'rollout';
  /** Positions (1-based, evaluation order) of the rules or rollouts that use the segment. */
  positions: number[];
}

const IN_FLIGHT = 6;

export async function segmentUsage(ns: string, segmentKey: string): Promise<SegmentUse[]> {
  const all = await flags.list(ns);
  const found: (SegmentUse | null)[] = new Array(all.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < all.length) {
      const i = next++;
      const flag = all[i];
      const boolean = flag.type === 'BOOLEAN_FLAG_TYPE';
      const keysOfEach = boolean
        ? (await rollouts.list(ns, flag.key)).map((r) => (r.segment ? segmentKeysOf(r.segment) : []))
        : (await rules.list(ns, flag.key)).map((r) => segmentKeysOf(r));
      const positions = keysOfEach.flatMap((keys, at) => (keys.includes(segmentKey) ? [at + 1] : []));
      if (positions.length > 0) found[i] = { flagKey: flag.key, flagName: flag.name, kind: boolean ? 'rollout' : 'rule', positions };
    }
  };
  await Promise.all(Array.from({ length: Math.min(IN_FLIGHT, all.length) }, worker));
  return found.filter((use): use is SegmentUse => use !== null);
}

/** "flag dark-mode (rule 2)", "flag checkout (rollouts 1 and 3)". */
export function describeUse(use: SegmentUse): string {
  const noun = use.positions.length === 1 ? use.kind : `${use.kind}s`;
  return `flag ${use.flagKey} (${noun} ${andList(use.positions.map(String))})`;
}
