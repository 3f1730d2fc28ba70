import { patchedNamespace } from './patch';
import type { Flag, NamespaceData, Rollout, Rule, Segment } from '../core/types';
import { CRC_START, bucketBounds, crc32Update } from './hash';
import { compileMatcher } from './matchers';
import type { CompiledFlag, CompiledNamespace, CompiledRollout, CompiledRule, CompiledSegment } from './types';

/**
 * Builds the immutable evaluation snapshot of a namespace: flags joined with their variants,
 * rules, distributions, rollouts and segments, constraint values parsed, bucket bounds and
 * the flag key's hash state precomputed. Pure: the same data always gives the same snapshot.
 */
export function compileNamespace(data: NamespaceData): CompiledNamespace {
  const flags = new Map<string, CompiledFlag>();
  const ordered = compileFlags(data);
  for (const flag of ordered) flags.set(flag.key, flag);
  return { key: data.key, revision: data.revision, flags, ordered };
}

function compileFlags(data: NamespaceData): CompiledFlag[] {
  const one = flagCompiler(data);
  return data.flags.map(one);
}

/**
 * What a namespace's flags share once compiled, so that memory grows with what is distinct,
 * not with rules: segments compiled once; the same list of segment keys one pair of frozen
 * arrays (keys interned from the segments); the same split one array of bucket bounds.
 */
export interface SharedParts {
  /** Compiles the segments not known yet (a namespace read in pages brings them page by page). */
  addSegments(segments: readonly Segment[]): void;
  segmentsOf(keys: readonly string[]): { segments: CompiledSegment[]; segmentKeys: readonly string[] };
  boundsOf(rollouts: number[]): number[];
}

function sharedParts(): SharedParts {
  const segments = new Map<string, CompiledSegment>();
  const lists = new Map<string, { segments: CompiledSegment[]; segmentKeys: readonly string[] }>();
  const bounds = new Map<string, number[]>();
  return {
    addSegments(list) {
      for (const segment of list) if (!segments.has(segment.key)) segments.set(segment.key, compileSegment(segment));
    },
    segmentsOf(keys) {
      // A NUL cannot occur in a key the store accepts: a safe separator.
      const id = keys.length === 1 ? keys[0] : keys.join('\0');
      let list = lists.get(id);
      if (!list) {
        const compiled = keys.map((k) => segments.get(k) ?? missingSegment(k));
        list = { segments: compiled, segmentKeys: Object.freeze(compiled.map((c) => c.key)) };
        lists.set(id, list);
      }
      return list;
    },
    boundsOf(rollouts) {
      const id = rollouts.join(',');
      let shared = bounds.get(id);
      if (!shared) bounds.set(id, (shared = bucketBounds(rollouts)));
      return shared;
    },
  };
}

/** What compiles one flag of `data`, sharing what its rules have in common with every other flag's. */
function flagCompiler(data: NamespaceData, shared = sharedParts()): (flag: Flag) => CompiledFlag {
  shared.addSegments(data.segments);
  const rulesByFlag = groupByFlag(data.rules);
  const rolloutsByFlag = groupByFlag(data.rollouts);
  return (flag) => compileFlag(flag, rulesByFlag.get(flag.key) ?? [], rolloutsByFlag.get(flag.key) ?? [], shared);
}

/**
 * Compiles a namespace that arrives in pages of whole flags, each page with the segments its
 * flags use, in creation order: what is held is the compiled flags, never the whole read (at
 * 100,000 flags of ten rules the read model alone was over a gigabyte). A slice of flags at a
 * time, awaiting the caller's `pause()` between slices (a turn of its event loop: this module
 * uses no Node API), so that a large namespace never holds the loop in one piece; the result is
 * the snapshot compileNamespace would give for the same data.
 */
export class NamespaceCompiler {
  private readonly shared = sharedParts();
  private readonly flags = new Map<string, CompiledFlag>();
  private readonly ordered: CompiledFlag[] = [];

  constructor(private readonly key: string) {}

  /** Compiles a page's flags, `flagsPerSlice` at a time, awaiting `pause()` between slices. */
  async add(page: NamespaceData, flagsPerSlice: number, pause: () => Promise<unknown>): Promise<void> {
    const one = flagCompiler(page, this.shared);
    for (let i = 0; i < page.flags.length; i++) {
      const flag = one(page.flags[i]);
      this.ordered.push(flag);
      this.flags.set(flag.key, flag);
      if ((i + 1) % flagsPerSlice === 0) await pause();
    }
  }

  finish(revision: string): CompiledNamespace {
    return { key: this.key, revision, flags: this.flags, ordered: this.ordered };
  }
}

/**
 * A new snapshot from an old one and a fresh read of some of its flags (`considered`): those
 * flags are recompiled, replaced, added or (when absent from the read) removed; every other
 * flag is shared with the old snapshot. This is what a write made here costs, instead of a
 * rebuild of the whole namespace.
 */
export function patchNamespace(old: CompiledNamespace, data: NamespaceData & { considered: string[] }): CompiledNamespace {
  return patchedNamespace(old, data, new Map(compileFlags(data).map((f) => [f.key, f])));
}

/** A reference to a segment that does not exist (possible only in declarative files) matches no one. */
function missingSegment(key: string): CompiledSegment {
  return {
    key,
    name: '',
    description: '',
    matchType: 'ALL_MATCH_TYPE',
    constraints: [{ id: '', type: 'UNKNOWN_COMPARISON_TYPE', property: '', operator: '', value: '', onEntityId: false, match: () => false }],
    strict: false,
  };
}

/** Rules or rollouts by flag key, each list by rank. */
export function groupByFlag<T extends { flagKey: string; rank: number }>(items: T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(item.flagKey);
    if (list) list.push(item);
    else out.set(item.flagKey, [item]);
  }
  // Stable sort: equal ranks keep store order, as Flipt's ORDER BY rank does.
  for (const list of out.values()) list.sort((a, b) => a.rank - b.rank);
  return out;
}

const KNOWN_TYPES = new Set(['STRING_COMPARISON_TYPE', 'NUMBER_COMPARISON_TYPE', 'BOOLEAN_COMPARISON_TYPE', 'DATETIME_COMPARISON_TYPE', 'ENTITY_ID_COMPARISON_TYPE']);

export function compileSegment(s: Segment): CompiledSegment {
  return {
    key: s.key,
    name: s.name,
    description: s.description,
    matchType: s.matchType,
    constraints: s.constraints.map((c) => ({
      id: c.id,
      type: c.type,
      property: c.property,
      operator: c.operator,
      value: c.value,
      onEntityId: c.type === 'ENTITY_ID_COMPARISON_TYPE',
      match: compileMatcher(c.type, c.operator, c.value),
    })),
    strict: s.constraints.some((c) => !KNOWN_TYPES.has(c.type)),
  };
}

function compileFlag(flag: Flag, rules: Rule[], rollouts: Rollout[], shared: SharedParts): CompiledFlag {
  const variants = new Map(flag.variants.map((v) => [v.id, v]));
  // Rules of a flag often split the same way: one set of distribution arrays for all of them.
  const splits = new Map<string, Pick<CompiledRule, 'distributions' | 'valid' | 'bounds'>>();
  const splitOf = (r: Rule) => {
    const id = r.distributions.map((d) => `${d.variantId}\0${d.rollout}`).join('\0\0');
    let split = splits.get(id);
    if (!split) {
      const distributions = r.distributions.map((d) => {
        const variant = variants.get(d.variantId);
        return {
          variantId: variant?.id ?? d.variantId, // the variant's own string: one copy, not one per rule
          variantKey: variant?.key ?? '',
          variantAttachment: variant?.attachment ?? '',
          rollout: d.rollout,
        };
      });
      const valid = distributions.filter((d) => d.rollout > 0);
      split = { distributions, valid: valid.length === distributions.length ? distributions : valid, bounds: shared.boundsOf(valid.map((d) => d.rollout)) };
      splits.set(id, split);
    }
    return split;
  };
  // Every field named in one literal: spreading the shared parts in gave each of 100,000 rules
  // (at 10,000 flags) a separate property array, 3.8 MB of the heap.
  const compiledRules: CompiledRule[] = rules.map((r) => {
    const { segments, segmentKeys } = shared.segmentsOf(r.segmentKeys);
    const { distributions, valid, bounds } = splitOf(r);
    return { id: r.id, rank: r.rank, segmentOperator: r.segmentOperator, segments, segmentKeys, distributions, valid, bounds };
  });
  const compiledRollouts: CompiledRollout[] = rollouts.map((r) => ({
    id: r.id,
    rank: r.rank,
    type: r.type,
    description: r.description,
    threshold: r.threshold ? { percentage: Math.fround(r.threshold.percentage), value: r.threshold.value } : null,
    segment: r.segment
      ? {
          ...shared.segmentsOf(r.segment.segmentKeys),
          segmentOperator: r.segment.segmentOperator,
          value: r.segment.value,
        }
      : null,
  }));
  return {
    key: flag.key,
    name: flag.name,
    description: flag.description,
    enabled: flag.enabled,
    type: flag.type,
    createdAt: flag.createdAt,
    updatedAt: flag.updatedAt,
    defaultVariant: flag.defaultVariant
      ? { id: flag.defaultVariant.id, key: flag.defaultVariant.key, attachment: flag.defaultVariant.attachment }
      : null,
    rules: compiledRules,
    rollouts: compiledRollouts,
    keyHashState: crc32Update(CRC_START, flag.key),
  };
}
