/**
 * A large Flipt import document for the scale tests: `segments` segments of three constraints
 * (seg-N), then `flags` variant flags (flag-N), each with the given variants and one rule per
 * segment `segmentsOf(i)` names, every rule split `rollouts` across the variants in order.
 */
export interface LargeDocumentShape {
  flags: number;
  segments: number;
  variants: readonly string[];
  rollouts: readonly number[];
  segmentsOf(flag: number): readonly number[];
}

export function largeDocument(shape: LargeDocumentShape): string {
  const lines = ['version: "1.4"', 'namespace: default', 'segments:'];
  for (let s = 0; s < shape.segments; s++) {
    lines.push(`- key: seg-${s}`, `  name: Segment ${s}`, '  match_type: ALL_MATCH_TYPE', '  constraints:');
    lines.push(`  - {type: STRING_COMPARISON_TYPE, property: plan, operator: eq, value: plan-${s}}`, '  - {type: NUMBER_COMPARISON_TYPE, property: age, operator: gt, value: "18"}', '  - {type: BOOLEAN_COMPARISON_TYPE, property: beta, operator: true}');
  }
  const split = shape.variants.map((v, i) => `    - {variant: ${v}, rollout: ${shape.rollouts[i]}}`);
  lines.push('flags:');
  for (let i = 0; i < shape.flags; i++) {
    lines.push(`- key: flag-${i}`, `  name: Flag ${i}`, '  type: VARIANT_FLAG_TYPE', '  enabled: true', '  variants:', ...shape.variants.map((v) => `  - key: ${v}`), '  rules:');
    for (const s of shape.segmentsOf(i)) lines.push(`  - segment: seg-${s}`, '    distributions:', ...split);
  }
  return `${lines.join('\n')}\n`;
}
