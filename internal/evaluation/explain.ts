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
    const ranges = trace.bucket.bounds.map((b, i) => `${i === 0 ? 0 : trace.bucket!.bounds[i - 1]}–${b - 1} ${trace.bucket!.variants[i]}`);
    lines.push(`  bucket ${trace.bucket.value} of 0–999 (crc32(flagKey+entityId) % 1000); ranges: ${ranges.join(', ')}`);
  }
  const answer =
    'enabled' in result
      ? `enabled=${result.enabled}`
      : `variant=${result.variantKey === '' ? '(none)' : result.variantKey} match=${result.match}`;
  const segments = result.segmentKeys.length > 0 ? ` segments=${result.segmentKeys.join(',')}` : '';
  lines.push(`result: ${answer} reason=${result.reason}${segments}`);
  lines.push(`why: ${trace.outcome}`);
  return lines;
}
