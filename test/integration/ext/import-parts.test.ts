import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeDocuments, decodeInParts, describeWarning, exportDocuments, importBulk, importParts, importText, type BulkImportOptions, type Encoding, type ImportOptions } from '../../../internal/ext';
import { EXT_FIXTURES, fixture, seedMissingSegments } from '../../support/documents-in-store';
import { openTestStore, type TestStore } from '../../support/store';

/**
 * Issue 16, item 4: a YAML stream imported a part at a time (decode-parts.ts, importParts)
 * leaves the store exactly as the whole import does, fails with the same message (line
 * included) when one thing is wrong, and warns about the same keys. Parts of one or two items
 * here, so that every fixture crosses part boundaries.
 */

const FIXTURES = [
  ...readdirSync(join(EXT_FIXTURES, 'import')).map((f) => `import/${f}`),
  ...readdirSync(join(EXT_FIXTURES, 'export')).map((f) => `export/${f}`),
  ...['full', 'small'].flatMap((set) => readdirSync(join(EXT_FIXTURES, 'dataset', set)).map((f) => `dataset/${set}/${f}`)),
].filter((f) => /\.(ya?ml|json)$/.test(f));
const encodingOf = (file: string): Encoding => (file.endsWith('.json') ? 'json' : 'yaml');

/** Segments that some fixtures' rollouts name without defining. */
async function seed(store: TestStore['store']): Promise<void> {
  await seedMissingSegments(store, { default: ['staff'], shop: ['staff'] });
}

type Outcome = { created: unknown; skipped: unknown; dropped: unknown; warnings: string[]; error?: undefined } | { error: string };

async function whole(t: TestStore, text: string, options: ImportOptions = {}, encoding: Encoding = 'yaml'): Promise<Outcome> {
  try {
    const warnings = decodeDocuments(text, { encoding }).warnings.map(describeWarning);
    const { created, skipped, dropped } = await importText(t.store, text, { encoding, ...options });
    return { created, skipped, dropped, warnings };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

async function inParts(t: TestStore, text: string, itemsPerPart: number, options: ImportOptions = {}, encoding: Encoding = 'yaml'): Promise<Outcome> {
  let stream;
  try {
    stream = decodeInParts(text, { encoding }, itemsPerPart);
  } catch (err) {
    return { error: (err as Error).message };
  }
  expect(stream, 'the stream is laid out for parts').not.toBeNull();
  try {
    const { created, skipped, dropped } = await importParts(t.store, stream!, options);
    return { created, skipped, dropped, warnings: stream!.warnings.map(describeWarning) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

describe('a document stream imported in parts', () => {
  let a: TestStore;
  let b: TestStore;
  beforeEach(async () => {
    [a, b] = await Promise.all([openTestStore(), openTestStore()]);
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  const stored = (t: TestStore) => exportDocuments(t.store, { allNamespaces: true });

  it('lays out every fixture, YAML and JSON (none uses anchors)', () => {
    const laidOut = (text: string, encoding: Encoding) => {
      try {
        return decodeInParts(text, { encoding }) !== null;
      } catch {
        return true; // laid out, and its version refused (bad-version.yml)
      }
    };
    const whole = FIXTURES.filter((f) => !laidOut(fixture(f).text, encodingOf(f)));
    expect(FIXTURES.length).toBeGreaterThan(40);
    expect(whole).toEqual([]);
  });

  it.each(FIXTURES.map((f) => [f]))('%s: the same store, result and warnings as the whole import', async (file) => {
    const { text } = fixture(file);
    await Promise.all([seed(a.store), seed(b.store)]);
    const expected = await whole(a, text, {}, encodingOf(file));
    const actual = await inParts(b, text, 1, {}, encodingOf(file));
    expect(actual).toEqual(expected);
    expect(await stored(b)).toEqual(await stored(a));
  });

  /** Seven flags and three segments; each case below makes one thing wrong in a late part. */
  const base = (change: (lines: string[]) => void = () => undefined) => {
    const lines = ['version: "1.4"', 'namespace: default', 'flags:'];
    for (let i = 1; i <= 7; i++) {
      lines.push(`- key: flag-${i}`, `  name: Flag ${i}`, '  variants:', '  - key: on', '  - key: off', '  rules:', `  - segment: segment-${i % 3}`, '    distributions:', '    - {variant: on, rollout: 50}', '    - {variant: off, rollout: 50}');
    }
    lines.push('segments:');
    for (let s = 0; s < 3; s++) lines.push(`- key: segment-${s}`, `  name: Segment ${s}`, '  constraints:', `  - {type: STRING_COMPARISON_TYPE, property: plan, operator: eq, value: p${s}}`);
    change(lines);
    return `${lines.join('\n')}\n`;
  };
  const flagLine = (lines: string[], i: number, field: string) => lines.findIndex((l, k) => l.includes(field) && k > lines.indexOf(`- key: flag-${i}`));

  it.each([
    ['nothing wrong', () => undefined],
    ['an unknown segment in a rule', (l: string[]) => (l[flagLine(l, 6, 'segment:')] = '  - segment: nowhere')],
    ['a flag key used twice, in different parts', (l: string[]) => (l[l.indexOf('- key: flag-6')] = '- key: flag-1')],
    ['a variant without a key', (l: string[]) => (l[flagLine(l, 5, '- key: off')] = '  - name: nameless')],
    ['a distribution of an unknown variant', (l: string[]) => (l[flagLine(l, 7, 'variant: off')] = '    - {variant: maybe, rollout: 50}')],
    ['a YAML syntax error', (l: string[]) => (l[flagLine(l, 5, 'name:')] = '  name: [unclosed')],
    ['a segment with an unknown operator', (l: string[]) => (l[l.length - 1] = '  - {type: STRING_COMPARISON_TYPE, property: plan, operator: resembles, value: x}')],
    ['an unsupported version', (l: string[]) => (l[0] = 'version: "9.0"')],
    ['misspelt keys in the document and in late items', (l: string[]) => l.splice(flagLine(l, 6, 'name:'), 0, '  enabeld: true', '  descripton: x') && l.splice(1, 0, 'namespaces: x')],
  ])('%s: the same outcome as the whole import', async (_, change) => {
    const text = base(change as (l: string[]) => void);
    const expected = await whole(a, text);
    const actual = await inParts(b, text, 2);
    expect(actual).toEqual(expected);
    expect(await stored(b)).toEqual(await stored(a));
  });

  it('a failure in a late part leaves nothing of the earlier parts', async () => {
    const text = base((l) => (l[flagLine(l, 7, 'segment:')] = '  - segment: nowhere'));
    const outcome = await inParts(b, text, 1);
    expect(outcome.error).toMatch(/nowhere/);
    expect(await stored(b)).toEqual(await stored(a)); // both empty
  });

  it('--skip-existing and --drop as the whole import', async () => {
    const text = base();
    const existing = 'flags:\n- key: flag-3\n  name: Kept\nsegments:\n- key: segment-0\n  name: Kept\n';
    for (const t of [a, b]) await importText(t.store, existing, { encoding: 'yaml' });
    // A key listed twice in one document is an error even when skipping: the parts skip only what existed before the document.
    const twice = base((l) => (l[l.indexOf('- key: flag-6')] = '- key: flag-1'));
    const refused = await whole(a, twice, { skipExisting: true });
    expect(refused.error).toMatch(/flag "default\/flag-1" is not unique/);
    expect(await inParts(b, twice, 2, { skipExisting: true })).toEqual(refused);
    expect(await inParts(b, text, 2, { skipExisting: true })).toEqual(await whole(a, text, { skipExisting: true }));
    expect(await stored(b)).toEqual(await stored(a));
    expect(await inParts(b, text, 3, { drop: true })).toEqual(await whole(a, text, { drop: true }));
    expect(await stored(b)).toEqual(await stored(a));
  });

  it('the bulk import route’s importer: in parts from its threshold, into one namespace, as read whole', async () => {
    const text = base((l) => {
      l.splice(l.indexOf('namespace: default'), 1);
      l.splice(flagLine(l, 6, 'name:'), 0, '  enabeld: true');
    });
    const options: BulkImportOptions = { encoding: 'yaml', namespace: 'team', drop: false, skipExisting: false };
    const attempt = (t: TestStore, body: string, partsFrom: number) => importBulk(t.store, body, options, partsFrom).then(
      (r) => ({ ...r, warnings: r.warnings.map(describeWarning) }),
      (err: Error) => ({ error: err.message }),
    );
    const expected = await attempt(a, text, Number.POSITIVE_INFINITY);
    expect(expected).toMatchObject({ created: { flags: 7 }, warnings: [expect.stringContaining('namespace "team", flag "flag-6", field enabeld')] });
    expect(await attempt(b, text, 0)).toEqual(expected);
    expect(await stored(b)).toEqual(await stored(a));
    const elsewhere = `namespace: shop\n${text}`;
    const refused = await attempt(a, elsewhere, Number.POSITIVE_INFINITY);
    expect(refused).toEqual({ error: expect.stringContaining('the document is for namespace "shop", not "team"') });
    expect(await attempt(b, elsewhere, 0)).toEqual(refused);
  });

  describe('JSON', () => {
    /** The same seven flags and three segments as JSON: pretty (one member per line), or each document on one line. */
    const jsonBase = (change: (doc: { flags: Record<string, unknown>[]; segments: Record<string, unknown>[] } & Record<string, unknown>) => void = () => undefined, pretty = true) => {
      const flags = Array.from({ length: 7 }, (_, k) => ({
        key: `flag-${k + 1}`,
        name: `Flag ${k + 1}`,
        variants: [{ key: 'on' }, { key: 'off' }],
        rules: [{ segment: `segment-${(k + 1) % 3}`, distributions: [{ variant: 'on', rollout: 50 }, { variant: 'off', rollout: 50 }] }],
      }));
      const segments = Array.from({ length: 3 }, (_, s) => ({ key: `segment-${s}`, name: `Segment ${s}`, constraints: [{ type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: `p${s}` }] }));
      const doc: { flags: Record<string, unknown>[]; segments: Record<string, unknown>[] } & Record<string, unknown> = { version: '1.4', namespace: 'default', flags, segments };
      change(doc);
      return JSON.stringify(doc, null, pretty ? 2 : undefined);
    };

    it.each([
      ['nothing wrong', jsonBase()],
      ['a type mistake in a late flag', jsonBase((d) => (d.flags[5].enabled = 'maybe'))],
      ['an unknown segment in a late rule', jsonBase((d) => ((d.flags[6].rules as { segment: string }[])[0].segment = 'nowhere'))],
      ['a misspelt key in a late flag and in the document', jsonBase((d) => ((d.flags[5].enabeld = true), (d.namespaces = 'x')))],
      ['a syntax error in a late flag', jsonBase().replace('"name": "Flag 6"', '"name": "Flag 6",,')],
      ['a late flag nested too deep', jsonBase((d) => (d.flags[5].metadata = JSON.parse(`${'{"a":'.repeat(75)}1${'}'.repeat(75)}`)))],
      ['documents on one line each, one with mistakes', `${jsonBase(undefined, false)}\n${jsonBase((d) => ((d.namespace = 'team'), (d.flags[6].enabeld = 1), (d.flags[5].enabled = 'no')), false)}\n`],
      ['documents on one line each', `${jsonBase(undefined, false)}\n${jsonBase((d) => ((d.namespace = 'team'), (d.flags[6].enabeld = 1)), false)}\n`],
    ])('%s: the same outcome as the whole import', async (_, text) => {
      const expected = await whole(a, text, {}, 'json');
      const actual = await inParts(b, text, 2, {}, 'json');
      expect(actual).toEqual(expected);
      expect(await stored(b)).toEqual(await stored(a));
    });

    it('falls back to the whole parse for anything but an object of members', () => {
      for (const text of ['[1, 2]', 'null', '{"flags": [1, 2,]}', '{"flags": [], "flags": []}', '{"flags": [}', '"text"', '{"flags": [{"key": "a"}', '{"version": "1.4" "flags": []}']) {
        expect(decodeInParts(text, { encoding: 'json' }), text).toBeNull();
      }
    });
  });
});
