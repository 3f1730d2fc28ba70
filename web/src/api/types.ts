import type {
  ComparisonType as AnyComparisonType,
  ConstraintJson,
  RolloutJson,
  RolloutType as AnyRolloutType,
  SegmentJson,
} from '../../../internal/wire/types';

/**
 * The management API's objects as Flipt v1's JSON gives them: internal/wire's types, the ones
 * the server encodes into, under the names the screens use. Times are RFC 3339 strings.
 */
export type {
  DistributionJson as Distribution,
  FlagJson as Flag,
  FlagType,
  MatchType,
  PageJson as Page,
  RuleJson as Rule,
  SegmentOperator,
  VariantJson as Variant,
} from '../../../internal/wire/types';

/** The comparison types a constraint can have: the server refuses the unknown one, so none is stored with it. */
export type ComparisonType = Exclude<AnyComparisonType, 'UNKNOWN_COMPARISON_TYPE'>;

/** The kinds of rollout: the server derives the type from the segment or threshold, never unknown. */
export type RolloutType = Exclude<AnyRolloutType, 'UNKNOWN_ROLLOUT_TYPE'>;

export type Constraint = Omit<ConstraintJson, 'type'> & { type: ComparisonType };
export type Segment = Omit<SegmentJson, 'constraints'> & { constraints: Constraint[] };
export type Rollout = Omit<RolloutJson, 'type'> & { type: RolloutType };
