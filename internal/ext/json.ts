/**
 * JSON as Go's encoding/json writes it, for text Flipt stores or prints: map keys sorted
 * (Go maps have no order, and the encoder sorts them), `<`, `>`, `&`, U+2028 and U+2029
 * escaped. Number formatting already agrees: both write the shortest round-trip form and
 * switch to exponents below 1e-6 and from 1e21.
 */

const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** Compact JSON with Go's escaping; keys in the order they are in `value`. */
export function goMarshal(value: unknown): string {
  // The escaped characters can only occur inside strings in JSON text.
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => GO_ESCAPES[c]);
}

/** A copy of `value` with every map's keys sorted, as Go orders a map[string]any. */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort(byBytes)) {
    const v = sortKeysDeep((value as Record<string, unknown>)[key]);
    if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
    else out[key] = v;
  }
  return out;
}

/** Go compares strings byte-wise; code-unit order is the same for everything but astral characters. */
export function byBytes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
