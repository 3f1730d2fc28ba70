import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * `npm ci` warns EBADENGINE for every locked package whose `engines.node` the running Node does
 * not satisfy. The oldest Node package.json's `engines` admits must satisfy them all, or an
 * install on that Node warns (and the declared range is not true).
 */

type Version = [number, number, number];

const ROOT = join(__dirname, '../..');
const json = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8'));

function compare(a: Version, b: Version): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** One comparator of an npm range (`>=20.19.0`, `^20.19`, `~1.2`, `20.x`, `12.*`, `*`) against a version. */
function allows(comparator: string, v: Version): boolean {
  const match = /^(>=|<=|>|<|=|\^|~)?v?(\*|x|\d+)(?:\.(\*|x|\d+))?(?:\.(\*|x|\d+))?$/i.exec(comparator);
  if (!match) throw new Error(`cannot read the range part "${comparator}"`);
  const [, op = '', ...parts] = match;
  const given = parts.filter((p) => p !== undefined && !/^[*x]$/i.test(p)).map(Number);
  const base: Version = [given[0] ?? 0, given[1] ?? 0, given[2] ?? 0];
  const c = compare(v, base);
  switch (op) {
    case '>=':
      return c >= 0;
    case '>':
      return c > 0;
    case '<=':
      return c <= 0;
    case '<':
      return c < 0;
    case '^':
      return c >= 0 && (base[0] > 0 || given.length < 2 ? v[0] === base[0] : base[1] > 0 || given.length < 3 ? v[1] === base[1] : v[2] === base[2]);
    case '~':
      return c >= 0 && v[0] === base[0] && (given.length < 2 || v[1] === base[1]);
    default:
      // `20`, `20.x`, `20.1`, `20.1.2`: every given part must match.
      return given.every((n, i) => v[i] === n);
  }
}

export function satisfies(range: string, v: Version): boolean {
  return range.split('||').some((set) => {
    const comparators = set.trim().replace(/(>=|<=|>|<|=)\s+/g, '$1').split(/\s+/).filter((c) => c !== '');
    return comparators.every((c) => allows(c, v));
  });
}

describe('the declared Node version', () => {
  it('reads npm ranges as npm does', () => {
    expect(satisfies('^20.19.0 || >=22.12.0', [20, 18, 1])).toBe(false);
    expect(satisfies('^20.19.0 || >=22.12.0', [20, 19, 0])).toBe(true);
    expect(satisfies('^20.19.0 || >=22.12.0', [21, 0, 0])).toBe(false);
    expect(satisfies('>= 0.8', [20, 19, 0])).toBe(true);
    expect(satisfies('10.* || >= 12.*', [11, 0, 0])).toBe(false);
    expect(satisfies('>=6 <7 || >=8', [20, 19, 0])).toBe(true);
    expect(satisfies('>=16 || 14 >=14.17', [14, 16, 0])).toBe(false);
    expect(satisfies('20.x || 22.x', [20, 0, 0])).toBe(true);
    expect(satisfies('^20.12||^22||>=24', [23, 1, 0])).toBe(false);
  });

  it('satisfies every locked package, so `npm ci` on it prints no EBADENGINE', () => {
    const declared = json('package.json').engines.node as string;
    const floor = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(declared);
    expect(floor, `engines.node "${declared}" should be a plain >= bound`).not.toBeNull();
    const oldest: Version = [Number(floor![1]), Number(floor![2]), Number(floor![3] ?? 0)];
    const packages = json('package-lock.json').packages as Record<string, { version?: string; engines?: { node?: string } | string[] }>;
    const refused = Object.entries(packages)
      .filter(([path, p]) => path !== '' && !Array.isArray(p.engines) && p.engines?.node !== undefined && !satisfies(p.engines.node, oldest))
      .map(([path, p]) => `${path.replace(/^.*node_modules\//, '')}@${p.version} wants node ${(p.engines as { node: string }).node}`);
    expect(refused).toEqual([]);
  });
});
