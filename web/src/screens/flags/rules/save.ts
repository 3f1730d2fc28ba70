import { rules as api, segmentKeysOf } from '../../../api/rules';
import type { Distribution, Rule, SegmentOperator } from '../../../api/types';
import type { Wanted } from './distributions';

/**
 * Saving a rule is several requests — the rule, then each distribution created, updated or
 * deleted — because Flipt's API has no one request for both. A step that fails stops the
 * flow with a `StepFailure` saying which step (and, for a distribution, which variant and row),
 * so the editor can show the message beside that row and reload what the server now holds.
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
    /** The editor's row it came from (`Wanted.row`), where its message goes. */
    readonly row?: string,
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

  const step = async (target: { variantId: string; row?: string }, write: () => Promise<unknown>) => {
    try {
      await write();
    } catch (err) {
      throw new StepFailure(err, 'distribution', rule.id, target.variantId, target.row);
    }
  };
  // Each wanted distribution writes over one the rule has — the one its row edits, else the
  // first left of its variant; the distributions left over are deleted, the rest created.
  const unclaimed = [...(existing?.distributions ?? [])];
  const claimed = new Map<Wanted, Distribution>();
  const claim = (w: Wanted, match: (d: Distribution) => boolean) => {
    const at = unclaimed.findIndex(match);
    if (at !== -1) claimed.set(w, unclaimed.splice(at, 1)[0]);
  };
  for (const w of draft.distributions) if (w.distributionId) claim(w, (d) => d.id === w.distributionId);
  for (const w of draft.distributions) if (!claimed.has(w)) claim(w, (d) => d.variantId === w.variantId);
  for (const d of unclaimed) {
    await step({ variantId: d.variantId }, () => api.deleteDistribution(ns, flag, rule.id, d.id, d.variantId));
  }
  for (const w of draft.distributions) {
    const over = claimed.get(w);
    const body = { variantId: w.variantId, rollout: w.rollout };
    if (!over) await step(w, () => api.createDistribution(ns, flag, rule.id, body));
    else if (over.rollout !== w.rollout || over.variantId !== w.variantId) await step(w, () => api.updateDistribution(ns, flag, rule.id, over.id, body));
  }
  return rule;
}

function segmentsChanged(rule: Rule, draft: RuleDraft): boolean {
  const before = segmentKeysOf(rule);
  if (before.join('\n') !== draft.segmentKeys.join('\n')) return true;
  // One segment: the server forces OR, so the operator is no change.
  return draft.segmentKeys.length > 1 && rule.segmentOperator !== draft.segmentOperator;
}
