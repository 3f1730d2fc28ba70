import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ExtError, decodeDocuments, droppedState, encodingOf, planImport, type DecodeOptions, type Encoding } from '../../internal/ext';

/** Decoding, versions and Flipt's version gates, on the import documents (test/fixtures/ext) and crafted ones. */

const FIXTURES = join(__dirname, '../fixtures/ext/import');
const read = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');
const imports = readdirSync(FIXTURES);
const REJECTED: Record<string, string> = {
  'bad-version': 'unsupported version: 9.1',
  'v1.0-with-type': 'flag.type is supported in version >=1.1, found 1.0',
  'v1.0-with-rollouts': 'flag.rollouts is supported in version >=1.1, found 1.0',
};

/** Decodes and validates (against an empty store), as an import does before writing anything. */
function check(text: string, options: Partial<DecodeOptions> = {}) {
  const stream = decodeDocuments(text, { encoding: 'yaml', ...options });
  return { stream, plan: planImport(stream, droppedState()) };
}

function failure(fn: () => unknown): ExtError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(ExtError);
    return err as ExtError;
  }
  throw new Error('expected an ExtError');
}

describe('the import documents', () => {
  it('has every document both as YAML and JSON', () => {
    const stems = (ext: string) => imports.filter((f) => f.endsWith(ext)).map((f) => f.replace(/\.[a-z]+$/, ''));
    expect(stems('.yml')).toEqual(stems('.json'));
    expect(stems('.yml').length).toBeGreaterThanOrEqual(15);
  });

  it.each(imports.filter((f) => f.endsWith('.yml')).map((f) => f.replace(/\.yml$/, '')))('%s reads the same from YAML and JSON', (stem) => {
    const decode = (encoding: Encoding) => {
      try {
        return decodeDocuments(read(`${stem}.${encoding === 'yaml' ? 'yml' : 'json'}`), { encoding });
      } catch (err) {
        return (err as ExtError).reason;
      }
    };
    expect(decode('json')).toEqual(decode('yaml'));
  });

  it.each(imports.map((f) => [f]))('%s is accepted or rejected as Flipt does', (file) => {
    const stem = file.replace(/\.[a-z]+$/, '');
    const run = () => check(read(file), { encoding: encodingOf(file)! });
    if (REJECTED[stem]) {
      const err = failure(run);
      expect(err.reason).toBe(REJECTED[stem]);
      expect(err.message.startsWith(REJECTED[stem])).toBe(true);
      expect(err.location?.document).toBe(1);
      if (file.endsWith('.yml')) expect(err.location?.line).toBeGreaterThan(0);
    } else {
      // Rules and rollouts name segments such as `internal_users` that only a store would hold.
      const stream = decodeDocuments(read(file), { encoding: encodingOf(file)! });
      expect(stream.documents.length).toBeGreaterThan(0);
    }
  });

  it('reads the multi-namespace streams document by document', () => {
    for (const ext of ['yml', 'json'] as const) {
      const stream = decodeDocuments(read(`stream-three-namespaces.${ext}`), { encoding: encodingOf(`x.${ext}`)! });
      expect(stream.documents.map((d) => d.namespace ?? null)).toEqual(['shop', 'outlet', null]);
      expect(stream.documents.map((d) => d.flags?.map((f) => f.key))).toEqual([
        ['checkout', 'dark-mode'],
        ['wishlist', 'free-shipping'],
        ['wishlist', 'free-shipping'],
      ]);
    }
  });

  it('skips the comment line Flipt writes at the top of a JSON export', () => {
    const stream = decodeDocuments(read('v1.4-exported.json'), { encoding: 'json' });
    expect(stream.documents).toEqual([
      {
        version: '1.4',
        namespace: { key: 'default', name: 'Default', description: 'Default namespace' },
        flags: [{ key: 'holiday-banner', name: 'Holiday banner', type: 'BOOLEAN_FLAG_TYPE', enabled: false, metadata: { campaign: { region: 'emea' } } }],
      },
    ]);
  });
});

describe('versions', () => {
  it('takes a missing version as the newest supported one', () => {
    expect(check('flags: []\n').stream.version).toMatchObject({ major: 1, minor: 4 });
    expect(check('flags: []\n', { maxVersion: '1.6' }).stream.version).toMatchObject({ major: 1, minor: 6 });
  });

  it('accepts the tolerant spellings semver accepts', () => {
    for (const text of ['1.2', '"1.2"', 'v1.2', '1.2.0', '" 1.2 "', '01.02']) {
      expect(check(`version: ${text}\n`).stream.version, text).toMatchObject({ major: 1, minor: 2, patch: 0 });
    }
    expect(check('version: 1.0\n').stream.version).toMatchObject({ major: 1, minor: 0 });
  });

  it('refuses versions beyond the maximum with Flipt\'s message', () => {
    expect(failure(() => check('version: "1.5"\n')).message).toBe('unsupported version: 1.5 (document 1, field version, line 1)');
    expect(failure(() => check('version: "1.4.1"\n')).reason).toBe('unsupported version: 1.4.1');
    expect(failure(() => check('version: "2.0"\n', { maxVersion: '1.6' })).reason).toBe('unsupported version: 2.0');
    expect(check('version: "1.6"\n', { maxVersion: '1.6' }).stream.version).toMatchObject({ minor: 6 });
    expect(failure(() => check('{"version":"1.10"}', { encoding: 'json' })).reason).toBe('unsupported version: 1.10');
    // YAML keeps the number's text: 1.10 is not 1.1.
    expect(failure(() => check('version: 1.10\n')).reason).toBe('unsupported version: 1.10');
  });

  it('reports a version semver cannot parse (with semver\'s own text)', () => {
    expect(failure(() => check('version: abc\n')).reason).toBe('parsing document version: Invalid character(s) found in major number "0abc"');
    expect(failure(() => check('version: "1.x"\n')).reason).toBe('parsing document version: Invalid character(s) found in minor number "x"');
  });

  it('names the version\'s own line', () => {
    expect(failure(() => check('# a comment\nnamespace: a\nversion: "3"\n')).location).toEqual({ document: 1, field: 'version', line: 3 });
    expect(failure(() => check('version: [1]\n')).reason).toBe('unmarshalling document: expected a string, found a list');
  });

  it('reads the version of the first document only', () => {
    const stream = check('version: "1.1"\nflags: []\n---\nversion: "9.9"\nnamespace: foo\n').stream;
    expect(stream.version).toMatchObject({ minor: 1 });
    expect(stream.documents).toHaveLength(2);
  });
});

describe('version gates', () => {
  const gate = (version: string, body: string) => failure(() => check(`version: "${version}"\n${body}`));

  it('gates flag.type, rollouts, rollout segment keys and default variants', () => {
    const rollout = (segment: string) => `flags:\n- key: f\n  name: f\n  rollouts:\n  - segment:\n      ${segment}\n`;
    expect(gate('1.0', 'flags:\n- key: f\n  name: f\n  type: BOOLEAN_FLAG_TYPE\n').reason).toBe('flag.type is supported in version >=1.1, found 1.0');
    expect(gate('1.0', rollout('key: s')).reason).toBe('flag.rollouts is supported in version >=1.1, found 1.0');
    const keys = gate('1.1', `${rollout('keys: [a, b]')}segments:\n- {key: a, name: a}\n- {key: b, name: b}\n`);
    expect(keys.reason).toBe('flag.rollouts[*].segment.keys is supported in version >=1.2, found 1.1');
    expect(keys.location).toMatchObject({ flag: 'f', field: 'rollouts[0].segment.keys', line: 7 });
    const variant = gate('1.2', 'flags:\n- key: f\n  name: f\n  variants:\n  - key: v\n    default: true\n');
    expect(variant.reason).toBe('variant.default is supported in version >=1.3, found 1.2');
    expect(variant.location).toMatchObject({ document: 1, namespace: 'default', flag: 'f', field: 'variants[0].default', line: 7 });
  });

  it('lets 1.3 set a default variant and 1.2 use rollout segment keys', () => {
    expect(check('version: "1.3"\nflags:\n- {key: f, name: f, variants: [{key: v, default: true}]}\n').plan.documents[0].flags[0].defaultVariant).toBe(0);
    const plan = check('version: "1.2"\nflags:\n- {key: f, name: f, rollouts: [{segment: {keys: [a]}}]}\nsegments: [{key: a, name: a}]\n').plan;
    expect(plan.documents[0].flags[0].rollouts[0].segment).toEqual({ segmentKeys: ['a'], segmentOperator: 'OR_SEGMENT_OPERATOR', value: false });
  });

  it('takes isoneof values as YAML lists from 1.6 only, storing JSON text', () => {
    const body = 'segments:\n- key: s\n  name: s\n  constraints:\n  - {type: STRING_COMPARISON_TYPE, property: p, operator: isoneof, value: [a, "<b>", true, null]}\n';
    const plan = check(`version: "1.6"\n${body}`, { maxVersion: '1.6' }).plan;
    expect(plan.documents[0].segments[0].constraints[0].value).toBe('["a","\\u003cb\\u003e","true",""]');
    const numbers = check(`version: "1.6"\n${body.replace('STRING', 'NUMBER').replace('[a, "<b>", true, null]', '[1, 2.5]')}`, { maxVersion: '1.6' });
    expect(numbers.plan.documents[0].segments[0].constraints[0].value).toBe('[1,2.5]');
    const old = failure(() => check(`version: "1.4"\n${body}`, { maxVersion: '1.6' }));
    expect(old.reason).toBe('segment.constraints[*].value (as a list) is supported in version >=1.6, found 1.4');
    expect(old.location).toMatchObject({ segment: 's', field: 'constraints[0].value', line: 6 });
  });

  it('applies the schema-only metadata gate and closed fields when strict', () => {
    const doc = 'version: "1.2"\nflags:\n- {key: f, name: f, metadata: {a: 1}}\n';
    expect(check(doc).plan.documents[0].flags[0].input.metadata).toEqual({ a: 1 });
    expect(failure(() => check(doc, { strict: true })).reason).toBe('flag.metadata is supported in version >=1.3, found 1.2');
    const unknown = failure(() => check('flags:\n- key: f\n  name: f\n  colour: red\n', { strict: true }));
    expect(unknown.reason).toBe('unmarshalling document: unknown field "colour"');
    expect(unknown.location).toMatchObject({ flag: 'f', field: 'colour', line: 4 });
    // Not strict: ignored, as Go's decoder ignores unknown keys.
    expect(check('flags:\n- key: f\n  name: f\n  colour: red\n').plan.counts.flags).toBe(1);
  });
});

describe('decoding', () => {
  it('reads YAML as Go fills Flipt\'s structs', () => {
    const { stream } = check(
      [
        'base: &base {name: shared, enabled: yes}',
        'flags:',
        '- key: a',
        '  <<: *base',
        '- ~',
        '- key: b',
        '  name: B',
        '  enabled: off',
        'segments:',
        '- key: s',
        '  name: s',
        '  constraints:',
        '  - {type: NUMBER_COMPARISON_TYPE, property: n, operator: eq, value: 2.50}',
        '',
      ].join('\n'),
    );
    const [doc] = stream.documents;
    expect(doc.flags).toEqual([
      { key: 'a', name: 'shared', enabled: true },
      { key: 'b', name: 'B', enabled: false },
    ]);
    // A string field takes the scalar's text, as written.
    expect(doc.segments?.[0].constraints?.[0].value).toBe('2.50');
  });

  it('names the field, document and line of a value of the wrong type', () => {
    const err = failure(() => check('flags:\n- key: f\n  name: f\n---\nnamespace: other\nflags:\n- key: g\n  name: g\n  enabled: maybe\n'));
    expect(err.reason).toBe('unmarshalling document: expected a boolean, found the string "maybe"');
    expect(err.location).toEqual({ document: 2, namespace: 'other', flag: 'g', field: 'enabled', line: 9 });
    expect(err.message).toBe(`${err.reason} (document 2, namespace "other", flag "g", field enabled, line 9)`);
    expect(failure(() => check('flags: nope\n')).location).toMatchObject({ field: 'flags', line: 1 });
    expect(failure(() => check('flags:\n- key: f\n  rules:\n  - rank: -1\n')).reason).toBe(
      'unmarshalling document: expected a whole number of at least 0, found number -1',
    );
  });

  it('reports YAML syntax errors with their line', () => {
    const err = failure(() => check('flags:\n- key: f\n  name: [unclosed\n'));
    expect(err.reason).toMatch(/^unmarshalling document: yaml: /);
    expect(err.location?.line).toBeGreaterThanOrEqual(3);
  });

  it('skips empty YAML documents', () => {
    expect(check('flags: []\n---\n').stream.documents).toHaveLength(1);
    expect(check('---\n# nothing\n---\nnamespace: a\n--- ~\n').stream.documents).toEqual([{ namespace: 'a' }]);
    expect(check('').stream.documents).toHaveLength(0);
  });

  it('reads JSON as one object, JSON lines, or concatenated objects', () => {
    const json = (text: string) => decodeDocuments(text, { encoding: 'json' }).documents;
    expect(json('{"namespace":"a"}')).toEqual([{ namespace: 'a' }]);
    expect(json('# exported by Flipt\n\n{"namespace":"a"}\n{"namespace":"b"}\n')).toEqual([{ namespace: 'a' }, { namespace: 'b' }]);
    expect(json('{\n  "namespace": "a"\n}\n{\n  "namespace": {"key": "b", "name": "B"}\n}')).toEqual([{ namespace: 'a' }, { namespace: { key: 'b', name: 'B' } }]);
    expect(json('{"flags":[{"key":"f","name":"{not}\\"a brace","enabled":true}]}')[0].flags?.[0].name).toBe('{not}"a brace');
    expect(json('')).toEqual([]);
  });

  it('names the line of a broken JSON line, and refuses what is not an object', () => {
    const err = failure(() => decodeDocuments('{"namespace":"a"}\n{"namespace":}\n', { encoding: 'json' }));
    expect(err.reason).toMatch(/^unmarshalling document: json: /);
    expect(err.location).toMatchObject({ document: 2, line: 2 });
    expect(failure(() => decodeDocuments('[1]', { encoding: 'json' })).reason).toBe('unmarshalling document: json: cannot unmarshal array into a document');
    // In a one-line JSON document every field is on that line.
    const typed = failure(() => decodeDocuments('{"namespace":"a"}\n{"flags":[{"key":"f","enabled":"yes"}]}', { encoding: 'json' }));
    expect(typed.location).toMatchObject({ document: 2, flag: 'f', field: 'enabled', line: 2 });
  });
});
