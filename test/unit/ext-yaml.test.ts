import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isAlias, isMap, isScalar, isSeq, LineCounter, parseAllDocuments, type Document as YamlDocument, type Node } from 'yaml';
import { decodeDocuments, encodeDocuments, type Document } from '../../internal/ext';
import { positionsOf } from '../../internal/ext/positions';
import { define } from '../../internal/ext/raw';
import { parseYamlStream } from '../../internal/ext/yaml';

/**
 * The one YAML reader (js-yaml, positions from its parse events) against the `yaml` library,
 * which writes our exports: the same values, and the same line for every map, list, key and
 * item, and the same source text for every number and boolean.
 */

/** What the `yaml` library makes of a stream: values with positions, in the shape `annotated` gives. */
function libraryReading(text: string): { line: number; value: unknown }[] {
  const lines = new LineCounter();
  const lineAt = (node: Node | null | undefined) => (node?.range ? lines.linePos(node.range[0]).line : undefined);
  const docs = Array.from(parseAllDocuments(text, { lineCounter: lines, merge: true }) as Iterable<YamlDocument.Parsed>);
  const convert = (node: Node | null | undefined, doc: YamlDocument.Parsed): unknown => {
    if (node === null || node === undefined) return null;
    if (isAlias(node)) return convert(node.resolve(doc) as Node, doc);
    if (isScalar(node)) return node.value;
    const sourceOf = (n: unknown) => (isScalar(n) && (typeof n.value === 'number' || typeof n.value === 'boolean') ? n.source : undefined);
    if (isSeq(node)) {
      const items = node.items as Node[];
      return {
        children: items.map((item) => convert(item, doc)),
        line: lineAt(node),
        lines: items.flatMap((item, i) => (item === null || (isScalar(item) && item.value === null && item.source === '') ? [] : [[i, lineAt(item)]])),
        sources: items.flatMap((item, i) => (sourceOf(item) === undefined ? [] : [[i, sourceOf(item)]])),
      };
    }
    if (isMap(node)) {
      const children: Record<string, unknown> = {};
      const keyLines: [string, number | undefined][] = [];
      const sources: [string, string][] = [];
      for (const pair of node.items) {
        const keyNode = pair.key as Node | null;
        const raw = isScalar(keyNode) ? keyNode.value : convert(keyNode, doc);
        if (typeof raw === 'symbol') {
          const merged = convert(pair.value as Node, doc) as { children: Record<string, unknown> } | { children: { children: Record<string, unknown> }[] };
          const sourcesMerged = Array.isArray(merged.children) ? merged.children.map((c) => c.children) : [merged.children];
          for (const source of sourcesMerged) for (const [k, value] of Object.entries(source)) if (!Object.hasOwn(children, k)) define(children, k, value);
          continue;
        }
        const key = raw === null || raw === undefined ? '' : String(raw);
        define(children, key, convert(pair.value as Node, doc));
        keyLines.push([key, lineAt(keyNode)]);
        const source = sourceOf(pair.value);
        if (source !== undefined) sources.push([key, source]);
      }
      return { children, line: lineAt(node), lines: keyLines, sources };
    }
    return null;
  };
  // Empty documents (a trailing `---`) are skipped, as Go's decoder skips them.
  return docs.map((doc) => ({ line: lineAt(doc.contents as Node)!, value: convert(doc.contents as Node, doc) })).filter((doc) => doc.value !== null);
}

/** Our reader's values with their recorded positions, in the same shape. */
function annotated(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const p = positionsOf(value);
  const children = Array.isArray(value) ? value.map(annotated) : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, annotated(v)]));
  return { children, line: p?.line, lines: [...(p?.lines ?? [])], sources: [...(p?.sources ?? [])] };
}

function expectSameReading(text: string): void {
  const ours = parseYamlStream(text).map((d) => ({ line: d.line, value: annotated(d.value) }));
  expect(ours, text).toEqual(libraryReading(text));
}

/** Every YAML document under test/fixtures/ext (import, export and the data set), by its path there. */
const EXT_FIXTURES = join(__dirname, '../fixtures/ext');
const yamlFiles = (dir: string) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => /\.ya?ml$/.test(f)).sort();

describe('the YAML reader', () => {
  it.each(yamlFiles(EXT_FIXTURES).map((f) => [f]))('reads %s as the yaml library does', (file) => {
    expectSameReading(readFileSync(join(EXT_FIXTURES, file), 'utf8'));
  });

  it('agrees on scalars, block and flow layouts, anchors, tags and merge keys', () => {
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
      'a: [1, 2]\n', 'a: {b: 1}\n', 'a: &x 1\nb: *x\n', 'a: !!str 1\n', 'a: |\n  text\n', 'a: >\n  text\n',
      'a: multi\n  line\n', 'a: "multi\n  line"\n', '- - a\n', '? a\n: b\n', '<<: {a: 1}\n', 'a:\tb\n',
      '%YAML 1.2\n---\na: 1\n', '--- a\n', 'a: 1\n...\n', 'scalar\n', '\uFEFFa: 1\n',
      'base: &b {k: 1, s: x}\nm:\n  <<: *b\n  s: y\nv: 1.0\nw: 0x1F\nd: 2024-01-01\nt: true\n---\n---\nsecond: [1, two]\n',
      'flags:\n  - key: a # c\n    # comment\n    enabled: yes\n    rules:\n    -   segment: x\n        rank: 2\n',
      '&a k: 1\nb: 2\n', 'x: &m\n  a: 1\ny: *m\n', 'l: [a: b, c]\n', 'k: {a: 1, "b": [2, {c: 3.0}]}\n',
      'x: !!map\n  a: 1\ny: !!seq\n- 2\n',
    ];
    for (const text of cases) expectSameReading(text);
  });

  it('gives a null item written as a bare `-` no line; the items after it keep theirs', () => {
    const [doc] = parseYamlStream('list:\n-\n- a\n- 3\n');
    const list = (doc.value as { list: unknown[] }).list;
    expect(list).toEqual([null, 'a', 3]);
    expect([...positionsOf(list)!.lines!]).toEqual([
      [1, 3],
      [2, 4],
    ]);
    expect([...positionsOf(list)!.sources!]).toEqual([[2, '3']]);
  });

  it('refuses what the yaml library refuses, naming the document and line', () => {
    const broken = [
      ['a: 1\na: 2\n', 1, 2],
      ['a: b: c\n', 1, 1],
      ['a:\n  b: 1\n c: 2\n', 1, 3],
      ['"unterminated: 1\n', 1, 2],
      ['a: "\\q"\n', 1, 1],
      ['a: - b\n', 1, 1],
      ['a: 1\n---\nb: [1\n', 2, 4],
    ] as const;
    for (const [text, document, line] of broken) {
      const library = Array.from(parseAllDocuments(text) as Iterable<YamlDocument.Parsed>);
      expect(library.some((d) => d.errors.length > 0), text).toBe(true);
      let caught: unknown;
      try {
        parseYamlStream(text);
      } catch (err) {
        caught = err;
      }
      expect(caught, text).toMatchObject({ message: expect.stringMatching(/^unmarshalling document: yaml: /), location: { document, line } });
    }
  });

  it('reads back what the exporter writes, tricky strings included', () => {
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
      expectSameReading(text);
      const back = decodeDocuments(text, { encoding: 'yaml' }).documents;
      expect(JSON.parse(JSON.stringify(back))).toEqual(JSON.parse(JSON.stringify(docs)));
    }
  });

  it('is several times faster than the yaml library on a large export', () => {
    const flags = Array.from({ length: 2000 }, (_, i) => ({ key: `f${i}`, name: `Flag ${i}`, enabled: true, variants: [{ key: 'a', attachment: { n: i, s: 'x' } }], rules: [{ segment: 's', distributions: [{ variant: 'a', rollout: 100 }] }] }));
    const text = encodeDocuments([{ version: '1.4', flags }], 'yaml');
    const time = (fn: () => unknown) => {
      const t = performance.now();
      fn();
      return performance.now() - t;
    };
    // The best of five rounds each, taken in turns, so that a busy machine (CI runs suites in
    // parallel) does not decide it. Measured here: 3–4.5 times faster.
    const ours: number[] = [];
    const library: number[] = [];
    for (let round = 0; round < 5; round++) {
      ours.push(time(() => parseYamlStream(text)));
      library.push(time(() => Array.from(parseAllDocuments(text) as Iterable<YamlDocument.Parsed>).map((doc) => doc.toJS())));
    }
    expect(Math.min(...ours) * 2).toBeLessThan(Math.min(...library));
  });

  it('names lines in a large stream written in the flow style too, and reads its YAML 1.1 booleans', () => {
    // Past 256 KB and not in the plain block style, the reader before this one had no lines.
    const rows = Array.from({ length: 5_000 }, (_, i) => `- {key: flag_${i}, name: Flag number ${i}, enabled: ${i % 2 === 0 ? 'yes' : 'no'}}`);
    rows[4_321] = '- {key: flag_4321, name: Flag number 4321, enabled: no, colour: red}';
    const text = `version: "1.4"\nflags:\n${rows.join('\n')}\n`;
    expect(text.length).toBeGreaterThan(256 * 1024);
    const { documents, warnings } = decodeDocuments(text, { encoding: 'yaml' });
    expect(warnings.map((w) => [w.message, w.location.line])).toEqual([[expect.stringContaining('colour'), 4_324]]);
    expect(documents[0].flags!.filter((flag) => flag.enabled).length).toBe(2_500);
  });

  it('reads merge keys, numbers in any base, and keeps dates as strings', () => {
    const text = 'base: &b {k: 1, s: x}\nm:\n  <<: *b\n  s: y\nv: 1.0\nw: 0x1F\nd: 2024-01-01\nt: true\n---\n---\nsecond: [1, two]\n';
    expect(parseYamlStream(text).map((d) => d.value)).toEqual([{ base: { k: 1, s: 'x' }, m: { k: 1, s: 'y' }, v: 1, w: 31, d: '2024-01-01', t: true }, { second: [1, 'two'] }]);
  });

  it('refuses alias cycles with a message, not a crash', () => {
    for (const text of ['a: &x [1, *x]\n', 'x: &a\n  y: *a\n']) expect(() => parseYamlStream(text), text).toThrow(/nests too deeply \(alias cycle\?\)/);
  });

  it('refuses a "billion laughs" document quickly', () => {
    const lines = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) {
      const name = String.fromCharCode(97 + i);
      lines.push(`${name}: &${name} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(',')}]`);
    }
    const started = performance.now();
    expect(() => parseYamlStream(lines.join('\n'))).toThrow(/excessive aliasing/);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('reports a syntax error with its line', () => {
    expect(() => parseYamlStream('a: 1\nb: [1, 2\nc: 3\n')).toThrow(/^unmarshalling document: yaml: .*line \d/);
  });
});
