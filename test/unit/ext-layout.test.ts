import { describe, expect, it } from 'vitest';
import { layoutYaml } from '../../internal/ext/layout';

/**
 * Issue 16, item 4: where a large YAML stream's parts are, found without parsing it — and
 * null (the stream is parsed whole, as before) for anything of another shape.
 */

const textOf = (text: string, range: { start: number; end: number }) => text.slice(range.start, range.end);

describe('the layout of a YAML stream', () => {
  it('finds each document’s entries and its flags’ and segments’ items, with their lines', () => {
    const text = [
      '# exported by Pennon',
      'version: "1.4"',
      'namespace:',
      '  key: shop',
      '  name: Shop',
      'flags:',
      '  - key: a',
      '    name: A',
      '',
      '    # a comment inside an item',
      '  - key: b',
      '    description: |',
      '      two lines',
      '',
      '      of text',
      'segments:',
      '- key: s',
      '  constraints:',
      '  - {type: STRING_COMPARISON_TYPE, property: p, operator: eq, value: v}',
      '---',
      'flags:',
      '- key: c',
      '',
    ].join('\n');
    const [first, second, ...rest] = layoutYaml(text)!;
    expect(rest).toEqual([]);
    expect(first.document).toBe(1);
    expect(first.line).toBe(2);
    expect(first.entries.map((e) => [e.key, e.line])).toEqual([
      ['version', 2],
      ['namespace', 3],
      ['flags', 6],
      ['segments', 16],
    ]);
    expect(textOf(text, first.entries[1])).toBe('namespace:\n  key: shop\n  name: Shop\n');
    expect(first.flags.map((f) => f.line)).toEqual([7, 11]);
    expect(textOf(text, first.flags[0])).toBe('  - key: a\n    name: A\n\n    # a comment inside an item\n');
    expect(textOf(text, first.flags[1])).toBe('  - key: b\n    description: |\n      two lines\n\n      of text\n');
    expect(first.segments.map((s) => s.line)).toEqual([17]);
    expect(second.document).toBe(2);
    expect(second.flags.map((f) => [f.line, textOf(text, f)])).toEqual([[22, '- key: c\n']]);
  });

  it('gives the inline forms of the lists to the document’s entries', () => {
    const [doc] = layoutYaml('flags: []\nsegments: [{key: s, name: S}]\n')!;
    expect(doc.entries.map((e) => e.key)).toEqual(['flags', 'segments']);
    expect(doc.flags).toEqual([]);
    expect(doc.segments).toEqual([]);
  });

  it('skips empty documents, as the whole parse does', () => {
    const docs = layoutYaml('---\n# nothing\n---\nflags:\n- key: a\n---\n')!;
    expect(docs.map((d) => [d.document, d.line])).toEqual([[1, 4]]);
  });

  it.each([
    ['an anchor and an alias', 'segments:\n- key: s\n  constraints: &c\n  - {property: p}\n- key: t\n  constraints: *c\n'],
    ['an alias in a list', 'flags:\n- key: a\n  rules:\n  - *rule\n'],
    ['a flow-style root', '{"flags": [{"key": "a"}]}\n'],
    ['an indented root', '  flags:\n  - key: a\n'],
    ['a tab in an indentation', 'flags:\n- key: a\n\tname: A\n'],
    ['a directive', '%YAML 1.2\n---\nflags: []\n'],
    ['a document end marker', 'flags: []\n...\n'],
    ['content after a document marker', '--- {flags: []}\n'],
    ['a key written twice', 'flags:\n- key: a\nflags:\n- key: b\n'],
    ['a quoted top-level key', '"flags":\n- key: a\n'],
    ['a map where the list is due', 'flags:\n  key: a\n'],
    ['a line less indented than the list', 'flags:\n  - key: a\n - key: b\n'],
    ['a list item at the top level', 'flags:\n  - key: a\n- key: b\n'],
    ['a root that is a list', '- key: a\n'],
  ])('is null for %s', (_, text) => {
    expect(layoutYaml(text)).toBeNull();
  });

  it('is not put off by an ampersand or an asterisk inside a value', () => {
    expect(layoutYaml('flags:\n- key: a\n  name: R&D *beta*\n  description: "5 * 3 & more"\n')).not.toBeNull();
  });
});
