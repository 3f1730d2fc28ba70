import type { ComparisonType, MatchType, SegmentOperator } from '../core/types';

/** The path an evaluation took: which rules or rollouts were tried, and why each answered. */
export interface ConstraintTrace {
  id: string;
  type: ComparisonType;
  property: string;
  operator: string;
  value: string;
  /** The value compared (the entity id for ENTITY_ID constraints; "" when missing). */
  input: string;
  matched: boolean;
}

export interface SegmentTrace {
  key: string;
  matchType: MatchType;
  matched: boolean;
  constraints: ConstraintTrace[];
}

export type StepTrace =
  | { kind: 'rule'; id: string; rank: number; segmentOperator: SegmentOperator; segments: SegmentTrace[]; matched: boolean }
  | { kind: 'segment'; id: string; rank: number; segmentOperator: SegmentOperator; segments: SegmentTrace[]; matched: boolean }
  | { kind: 'threshold'; id: string; rank: number; percentage: number; value: number; matched: boolean };

export interface FlagTrace {
  steps: StepTrace[];
  /** Variant flags whose matched rule has distributions: the entity's bucket, the bounds and their rollouts. */
  bucket?: { value: number; bounds: number[]; variants: string[]; rollouts: number[] };
  /** What the deciding step did ("bucket 12 falls in blue's range"); `why()` (explain.ts) says which step that was. */
  outcome: string;
}

export function newTrace(): FlagTrace {
  return { steps: [], outcome: '' };
}
