import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../internal/core/json-depth';

/** The nesting depth of a parsed value, the slow recursive way (fine at the depths generated here). */
function depthOf(value: unknown): number {
  if (Array.isArray(value)) return 1 + Math.max(0, ...value.map(depthOf));
  if (typeof value === 'object' && value !== null) return 1 + Math.max(0, ...Object.values(value).map(depthOf));
  return 0;
}

const nested = (depth: number, open = '[', close = ']', inner = '') => open.repeat(depth) + inner + close.repeat(depth);

describe('nestsDeeperThan', () => {
  it('agrees with the depth of the parsed value for any JSON text (strings full of brackets, quotes and escapes included)', () => {
    const text = fc.oneof(
      fc.json({ depthSize: 'large', maxDepth: 12 }),
      fc.jsonValue({ maxDepth: 12 }).map((v) => JSON.stringify(v, null, 2)),
    );
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 14 }), (json, limit) => {
        expect(nestsDeeperThan(json, limit)).toBe(depthOf(JSON.parse(json)) > limit);
      }),
      { seed: 1313, numRuns: 2000 },
    );
  });

  it('refuses one level past the limit and allows the limit itself', () => {
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH, '{"a":', '}', '1'))).toBe(false);
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1, '{"a":', '}', '1'))).toBe(true);
    expect(MAX_JSON_DEPTH).toBe(64);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const deepString = JSON.stringify({ attachment: nested(10_000) });
    expect(nestsDeeperThan(deepString)).toBe(false);
    const escaped = JSON.stringify({ a: `\\"${'['.repeat(500)}\\\\"` });
    expect(nestsDeeperThan(escaped)).toBe(false);
    expect(nestsDeeperThan(`["\\\\",${nested(MAX_JSON_DEPTH)}]`)).toBe(true);
  });

  it('judges text that is not JSON by its brackets alone, without being fooled by closers first', () => {
    expect(nestsDeeperThan(']'.repeat(1000) + '['.repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan('['.repeat(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(nestsDeeperThan('"unterminated [[[[' + '['.repeat(100))).toBe(false);
  });

  it('judges a million levels without recursion', () => {
    expect(nestsDeeperThan(nested(1_000_000))).toBe(true);
    expect(nestsDeeperThan(nested(1_000_000, '{"a":', '}', '1'))).toBe(true);
  });
});
