import { rangesFromBounds, type BucketRange } from './ranges';
import type { BooleanResult, CompiledFlag, VariantResult } from './types';
import type { FlagTrace, SegmentTrace } from './trace';

/**
 * A human-readable account of an evaluation: each rule or rollout tried, each segment and
 * constraint with the value it was compared to, the bucket, and the outcome. Pure text, so
 * the CLI prints it and the dashboard can show the same words.
 */

const mark = (ok: boolean) => (ok ? '✓' : '✗');
const op = (o: string) => (o === 'OR_SEGMENT_OPERATOR' ? 'any of' : 'all of');

function segmentLines(segments: SegmentTrace[], indent: string): string[] {
  const lines: string[] = [];
  for (const s of segments) {
    const how = s.constraints.length === 0 ? 'no constraints: everyone' : s.matchType === 'ALL_MATCH_TYPE' ? 'all must match' : 'any may match';
    lines.push(`${indent}${mark(s.matched)} segment ${s.key} (${how})`);
    for (const c of s.constraints) {
      const wanted = c.value === '' ? c.operator : `${c.operator} ${JSON.stringify(c.value)}`;
      const given = c.type === 'ENTITY_ID_COMPARISON_TYPE' ? `entity id ${JSON.stringify(c.input)}` : c.input === '' ? 'missing' : JSON.stringify(c.input);
      lines.push(`${indent}    ${mark(c.matched)} ${c.type === 'ENTITY_ID_COMPARISON_TYPE' ? 'entityId' : c.property} ${wanted} — got ${given}`);
    }
  }
  return lines;
}

export function explain(flag: CompiledFlag, trace: FlagTrace, result: VariantResult | BooleanResult): string[] {
  const kind = flag.type === 'BOOLEAN_FLAG_TYPE' ? 'boolean' : 'variant';
  // A boolean flag's `enabled` is its default value, not an off switch: rollouts still apply.
  const state = kind === 'boolean' ? `${flag.enabled ? 'enabled' : 'disabled'}: answers its default value ${flag.enabled} unless a rollout matches` : flag.enabled ? 'enabled' : 'disabled';
  const lines = [`flag ${flag.key} (${kind}, ${state})`];
  if (trace.steps.length === 0 && kind === 'variant' && flag.enabled) lines.push('  no rules');
  for (const step of trace.steps) {
    if (step.kind === 'threshold') {
      lines.push(`  ${mark(step.matched)} rollout ${step.rank}: threshold ${step.percentage}% — entity's value ${step.value} (matches below ${step.percentage})`);
      continue;
    }
    const what = step.kind === 'rule' ? `rule ${step.rank}` : `rollout ${step.rank}`;
    const keys = step.segments.map((s) => s.key);
    const which = keys.length === 1 ? `segment ${keys[0]}` : `${op(step.segmentOperator)} segments ${keys.join(', ')}`;
    lines.push(`  ${mark(step.matched)} ${what}: ${which}`);
    lines.push(...segmentLines(step.segments, '      '));
  }
  if (trace.bucket) {
    const { value, bounds, variants, rollouts } = trace.bucket;
    const ranges = rangesFromBounds(bounds, variants, rollouts);
    const shown = (list: BucketRange[]) => list.map((r) => `${r.from}–${r.to} ${r.variant ?? '(none)'}`).join(', ');
    const unreachable = ranges.unreachable.length === 0 ? '' : `; never reached (the distributions add up to ${ranges.total}%): ${shown(ranges.unreachable)}`;
    lines.push(`  bucket ${value} of 0–999 (crc32(flagKey+entityId) % 1000); ranges: ${shown(ranges.reachable.filter((r) => r.variant !== null))}${unreachable}`);
  }
  const answer =
    'enabled' in result
      ? `enabled=${result.enabled}`
      : `variant=${result.variantKey === '' ? '(none)' : result.variantKey} match=${result.match}`;
  const segments = result.segmentKeys.length > 0 ? ` segments=${result.segmentKeys.join(',')}` : '';
  lines.push(`result: ${answer} reason=${result.reason}${segments}`);
  lines.push(`why: ${why(flag, trace)}`);
  return lines;
}

/**
 * The answer in one sentence: which rule (or rollout) answered and that the earlier ones did
 * not match, then what that step did — "rule 2 matched (rule 1 did not): bucket 405 falls in
 * control's range"; when none matched, which were tried and what the flag answers instead.
 */
export function why(flag: CompiledFlag, trace: FlagTrace): string {
  const noun = flag.type === 'BOOLEAN_FLAG_TYPE' ? 'rollout' : 'rule';
  const matched = trace.steps.find((s) => s.matched);
  const failed = trace.steps.filter((s) => !s.matched).map((s) => s.rank);
  if (matched) return `${noun} ${matched.rank} matched${failed.length === 0 ? '' : ` (${ranks(noun, failed)} did not)`}: ${trace.outcome}`;
  // A disabled variant flag tries no rule; its outcome says so.
  if (flag.type === 'VARIANT_FLAG_TYPE' && !flag.enabled) return trace.outcome;
  if (failed.length === 0) return `the flag has no ${noun}s: ${trace.outcome}`;
  return `${ranks(noun, failed)} did not match: ${trace.outcome}`;
}

/** "rule 1", "rules 1 and 2", "rules 1, 2 and 4", "rules 1–5" (three or more in a row). */
function ranks(noun: string, list: number[]): string {
  if (list.length === 1) return `${noun} ${list[0]}`;
  const consecutive = list.every((r, i) => i === 0 || r === list[i - 1] + 1);
  if (consecutive && list.length > 2) return `${noun}s ${list[0]}–${list[list.length - 1]}`;
  return `${noun}s ${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`;
}
