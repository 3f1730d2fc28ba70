// No Node APIs here, nor through '../core' (its index brings the clock's node:crypto): the dashboard's
// evaluation console bundles this evaluator into the browser to explain answers.
export * from './types';
export { NamespaceCompiler, compileNamespace, compileSegment, groupByFlag, patchNamespace } from './compile';
export { evaluateVariant, evaluateBoolean } from './evaluate';
export { compareNamespaces, contextsFor, type Equivalence, type EvaluationDifference } from './equivalence';
export { compileMatcher, diagnose, type Matcher } from './matchers';
export { crc32, variantBucket, thresholdValue, bucketBounds } from './hash';
export { newTrace, type FlagTrace, type StepTrace, type SegmentTrace, type ConstraintTrace } from './trace';
export { explain, why } from './explain';
export { BUCKETS, distributionRanges, rangesFromBounds, type BucketRange, type DistributionShare, type RuleRanges } from './ranges';
