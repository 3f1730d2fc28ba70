import { rules as api, segmentKeysOf } from '../../../api/rules';
import type { Rule, SegmentOperator } from '../../../api/types';
import type { Wanted } from './distributions';

/**
 * Saving a rule is several requests — the rule, then each distribution created, updated or
 * deleted — because Flipt's API has no one request for both. A step that fails stops the
 * flow with a `StepFailure` saying which step (and, for a distribution, which variant), so the
 * editor can show the message beside that variant and reload what the server now holds.
 */
export interface RuleDraft {
  segmentKeys: string[];
  segmentOperator: SegmentOperator;
  distributions: Wanted[];
}

export class StepFailure extends Error {
  constructor(
    override readonly cause: unknown,
    /** 'rule': creating or updating the rule itself; 'distribution': one of its distributions. */
    readonly step: 'rule' | 'distribution',
    /** The rule's id once it exists (a new rule created before a distribution failed). */
    readonly ruleId: string | undefined,
    /** The variant whose distribution was refused. */
    readonly variantId?: string,
  ) {
    super(cause instanceof Error ? cause.message : String(cause));
    this.name = 'StepFailure';
  }
}

export async function saveRule(ns: string, flag: string, existing: Rule | undefined, draft: RuleDraft, rank: number): Promise<Rule> {
  let rule: Rule;
  const input = { segmentKeys: draft.segmentKeys, segmentOperator: draft.segmentOperator };
  if (!existing) {
    try {
      rule = await api.create(ns, flag, { ...input, rank });
    } catch (err) {
      throw new StepFailure(err, 'rule', undefined);
    }
  } else {
    rule = existing;
    if (segmentsChanged(existing, draft)) {
      try {
        rule = await api.update(ns, flag, existing.id, input);
      } catch (err) {
        throw new StepFailure(err, 'rule', existing.id);
      }
    }
  }

  const step = async (variantId: string, write: () => Promise<unknown>) => {
    try {
      await write();
    } catch (err) {
      throw new StepFailure(err, 'distribution', rule.id, variantId);
    }
  };
  // One distribution per variant: the first one kept (updated), any other for that variant deleted.
  const kept = new Map<string, Rule['distributions'][number]>();
  const extra: Rule['distributions'] = [];
  for (const d of existing?.distributions ?? []) {
    if (kept.has(d.variantId)) extra.push(d);
    else kept.set(d.variantId, d);
  }
  const want = new Map(draft.distributions.map((d) => [d.variantId, d.rollout]));
  for (const d of [...extra, ...[...kept.values()].filter((d) => !want.has(d.variantId))]) {
    await step(d.variantId, () => api.deleteDistribution(ns, flag, rule.id, d.id, d.variantId));
  }
  for (const { variantId, rollout } of draft.distributions) {
    const have = kept.get(variantId);
    if (!have) await step(variantId, () => api.createDistribution(ns, flag, rule.id, { variantId, rollout }));
    else if (have.rollout !== rollout) await step(variantId, () => api.updateDistribution(ns, flag, rule.id, have.id, { variantId, rollout }));
  }
  return rule;
}

function segmentsChanged(rule: Rule, draft: RuleDraft): boolean {
  const before = segmentKeysOf(rule);
  if (before.join('\n') !== draft.segmentKeys.join('\n')) return true;
  // One segment: the server forces OR, so the operator is no change.
  return draft.segmentKeys.length > 1 && rule.segmentOperator !== draft.segmentOperator;
}
