import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeDocuments, encodeDocuments, type Document } from '../../internal/ext';
import { positionsOf } from '../../internal/ext/positions';
import { parseSimpleYaml } from '../../internal/ext/yaml-fast';
import { parseFullYaml, parseLargeYaml } from '../../internal/ext/yaml-tree';

/**
 * The fast YAML reader against the `yaml` library: wherever it does not step aside, it must
 * give the same values, lines and scalar sources.
 */

/** Values with their recorded positions, so that `toEqual` compares both. */
function annotated(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const p = positionsOf(value);
  const children = Array.isArray(value) ? value.map(annotated) : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, annotated(v)]));
  return { children, line: p?.line, lines: [...(p?.lines ?? [])], sources: [...(p?.sources ?? [])] };
}

function same(text: string): boolean {
  const fast = parseSimpleYaml(text);
  if (fast === null) return false;
  const full = parseFullYaml(text);
  expect(fast.map((d) => ({ line: d.line, value: annotated(d.value) })), text).toEqual(full.map((d) => ({ line: d.line, value: annotated(d.value) })));
  return true;
}

/** Every YAML document under test/fixtures/ext (import, export and the data set), by its path there. */
const EXT_FIXTURES = join(__dirname, '../fixtures/ext');
const yamlFiles = (dir: string) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.ya?ml$/.test(f)).sort();

describe('the fast YAML reader', () => {
  it.each(yamlFiles(EXT_FIXTURES).map((f) => [f]))('reads %s as the library does', (file) => {
    expect(same(readFileSync(join(EXT_FIXTURES, file), 'utf8'))).toBe(true);
  });

  it('agrees on the scalars and layouts it accepts', () => {
    const cases = [
      'a: 1\nb: 1.50\nc: -2\nd: 0x1F\ne: 0o17\nf: .5\ng: 1e3\nh: +12\ni: .inf\nj: -.Inf\nk: .nan\n',
      'a: true\nb: False\nc: TRUE\nd: yes\ne: ~\nf: null\ng:\nh: NULL\ni: 2024-01-01\nj: 1_000\n',
      'a: "x: y # z"\nb: \'it\'\'s\'\nc: "tab\\there \\u00e9 \\x41 \\" \\\\ \\/"\nd: plain # comment\ne: a#b\nf: http://x.y/z?a=b\n',
      '"quoted key": 1\n\'single\': 2\n1.0: x\ntrue: y\n~: z\nkey with spaces: w\n',
      'list:\n- 1\n- two\n-   three\n- key: v\n  other: w\n-\n  nested: 1\nafter: x\n',
      'indented:\n  - a\n  - b:\n      c: d\n  -\n    - x\n',
      'empty: []\nobj: {}\nitem:\n- []\n- {}\n',
      '# comment\n\n  # indented comment\nk: v   \n---\n---  # c\nk: 2\n',
      'k: v\r\nl: w\r\n',
      '__proto__: x\nconstructor: y\n',
      '  indented: top\n  more: here\n',
      'a:\n  b:\n    c:\n      - d\n      - e: f\n        g: h\n',
      'a: "\u00a0"\nb: \u00a0x\n',
      '-1: x\n:y: z\n?q: r\na: -x\nb: ?y\nc: :z\n',
    ];
    for (const text of cases) expect(same(text), text).toBe(true);
  });

  it('steps aside for everything else', () => {
    const others = [
      'a: [1, 2]\n', 'a: {b: 1}\n', 'a: &x 1\nb: *x\n', 'a: !!str 1\n', 'a: |\n  text\n', 'a: >\n  text\n',
      'a: multi\n  line\n', 'a: "multi\n  line"\n', '- - a\n', '? a\n: b\n', 'a: 1\na: 2\n', '<<: {a: 1}\n',
      'a:\tb\n', '%YAML 1.2\n---\na: 1\n', '--- a\n', 'a: 1\n...\n', 'a: b: c\n', 'scalar\n', '-\n- a\n', 'a: @x\n',
      '\uFEFFa: 1\n', 'a:\n  b: 1\n c: 2\n', '"unterminated: 1\n', 'a: "\\q"\n', 'a: - b\n', 'a: ? b\n', 'a: :\n',
    ];
    for (const text of others) expect(parseSimpleYaml(text), JSON.stringify(text)).toBeNull();
  });

  it('reads back what the exporter writes, tricky strings included, through the fast path', () => {
    const words = ['plain', 'yes', 'No', 'null', '~', '1.0', '0x10', '-1', '', ' lead', 'trail ', 'a: b', 'a #b', '#x', '- x', '[x]', '{x}', '"q"', "it's", 'back\\slash', 'é ✓ 𝄞', '<&>', 'true', '.inf', '2024-01-01', '@at', '%p', '*s', '&a', '!t', '|', '>'];
    let seed = 7;
    const next = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
    const pick = () => words[Math.floor(next() * words.length)];
    const anyValue = (depth: number): unknown => {
      const r = next();
      if (depth > 2 || r < 0.3) return pick();
      if (r < 0.4) return Math.round(next() * 1e6) / 100;
      if (r < 0.5) return next() < 0.5;
      if (r < 0.55) return null;
      if (r < 0.75) return Array.from({ length: Math.floor(next() * 3) }, () => anyValue(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(next() * 3) }, (_, i) => [`${pick()}${i}`, anyValue(depth + 1)]));
    };
    let fast = 0;
    for (let round = 0; round < 60; round++) {
      const docs: Document[] = [
        {
          version: '1.4',
          namespace: { key: 'default', name: pick() || 'n', description: pick() || undefined },
          flags: [{ key: 'f', name: pick() || 'n', description: pick() || undefined, enabled: next() < 0.5, metadata: { [pick() || 'k']: anyValue(0) }, variants: [{ key: 'v', attachment: anyValue(0) ?? 'none' }] }],
          segments: [{ key: 's', name: 'S', constraints: [{ type: 'STRING_COMPARISON_TYPE', property: 'p', operator: 'eq', value: pick() || 'x' }], match_type: 'ALL_MATCH_TYPE' }],
        },
        { namespace: { key: 'other' } },
      ];
      const text = encodeDocuments(docs, 'yaml');
      if (same(text)) fast++;
      const back = decodeDocuments(text, { encoding: 'yaml' }).documents;
      expect(JSON.parse(JSON.stringify(back))).toEqual(JSON.parse(JSON.stringify(docs)));
    }
    expect(fast).toBeGreaterThan(30);
  });

  it('is much faster than the library on a large export', () => {
    const flags = Array.from({ length: 2000 }, (_, i) => ({ key: `f${i}`, name: `Flag ${i}`, enabled: true, variants: [{ key: 'a', attachment: { n: i, s: 'x' } }], rules: [{ segment: 's', distributions: [{ variant: 'a', rollout: 100 }] }] }));
    const text = encodeDocuments([{ version: '1.4', flags }], 'yaml');
    // Best of three each, so that a busy machine (CI runs suites in parallel) does not decide it.
    const best = (fn: () => unknown) =>
      Math.min(
        ...[0, 1, 2].map(() => {
          const t = performance.now();
          fn();
          return performance.now() - t;
        }),
      );
    expect(parseSimpleYaml(text)).not.toBeNull();
    const fastMs = best(() => parseSimpleYaml(text));
    const fullMs = best(() => parseFullYaml(text));
    expect(fastMs * 3).toBeLessThan(fullMs);
  });
});

describe('the full YAML readers (positioned, and js-yaml for large files)', () => {
  const readers = [parseFullYaml, parseLargeYaml];

  it('read the same values: merge keys, numbers in any base, dates kept as strings', () => {
    const text = 'base: &b {k: 1, s: x}\nm:\n  <<: *b\n  s: y\nv: 1.0\nw: 0x1F\nd: 2024-01-01\nt: true\n---\n---\nsecond: [1, two]\n';
    const expected = [{ base: { k: 1, s: 'x' }, m: { k: 1, s: 'y' }, v: 1, w: 31, d: '2024-01-01', t: true }, { second: [1, 'two'] }];
    for (const read of readers) expect(read(text).map((d) => d.value), read.name).toEqual(expected);
  });

  it('refuse alias cycles with a message, not a crash', () => {
    for (const text of ['a: &x [1, *x]\n', 'x: &a\n  y: *a\n']) {
      for (const read of readers) expect(() => read(text), `${read.name}: ${text}`).toThrow(/nests too deeply \(alias cycle\?\)/);
    }
  });

  it('refuse a "billion laughs" document quickly', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    }
    for (const read of readers) {
      const started = performance.now();
      expect(() => read(lines.join('\n')), read.name).toThrow(/excessive aliasing/);
      expect(performance.now() - started).toBeLessThan(2_000);
    }
  });

  it('report a syntax error with its line', () => {
    for (const read of readers) expect(() => read('a: 1\nb: [1, 2\nc: 3\n'), read.name).toThrow(/^unmarshalling document: yaml: .*line \d/);
  });
});
