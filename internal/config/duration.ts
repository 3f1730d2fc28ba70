/**
 * Go-style durations ("300ms", "1.5h", "1h30m"), the form Flipt's configuration uses.
 * A bare number is taken as milliseconds.
 */
const UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|ms|s|m|h)/gy;

/** Milliseconds, or null when the text is not a duration. */
export function parseDuration(text: string): number | null {
  const s = text.trim();
  if (s === '0') return 0;
  if (s === '') return null;
  let total = 0;
  PART.lastIndex = 0;
  let consumed = 0;
  let m: RegExpExecArray | null;
  while ((m = PART.exec(s)) !== null) {
    total += Number(m[1]) * UNIT_MS[m[2]];
    consumed = PART.lastIndex;
  }
  return consumed === s.length ? total : null;
}

export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [['h', 3_600_000], ['m', 60_000], ['s', 1000]] as const) {
    if (rest >= size) {
      const n = Math.floor(rest / size);
      parts.push(`${n}${unit}`);
      rest -= n * size;
    }
  }
  if (rest > 0) parts.push(`${rest}ms`);
  return parts.join('');
}
