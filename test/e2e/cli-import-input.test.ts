import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pennon, tempDir } from '../support/cli';

/**
 * `pennon flag import` on what people actually feed it (the built CLI, in-process): misspelt
 * keys are imported as Flipt imports them but each is named on stderr; other kinds of file are
 * refused; a file that does not parse is shown as an excerpt, never whole.
 */

describe('pennon flag import: unknown keys, foreign files, parse errors (the built CLI)', () => {
  let dir: string;
  let env: Record<string, string>;
  beforeAll(() => {
    dir = tempDir('pennon-input-');
    env = { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}` };
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const exported = async () => {
    const result = await pennon(['flag', 'export', '--all-namespaces'], { env });
    expect(result.exitCode, result.stderr).toBe(0);
    return result.stdout;
  };

  it('warns about every misspelt key with its document and line, and imports the rest', async () => {
    const typos = file('typos.yml', 'namespace: default\nflags:\n- key: a\n  name: A\n  enabeld: true\n  varaints:\n  - key: v\n---\nnamespace: team\nflgas:\n- key: b\n');
    const result = await pennon(['flag', 'import', typos], { env });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stderr.split('\n')).toEqual([
      'warning: unknown key "enabeld" ignored (document 1, namespace "default", flag "a", field enabeld, line 5)',
      'warning: unknown key "varaints" ignored (document 1, namespace "default", flag "a", field varaints, line 6)',
      'warning: unknown key "flgas" ignored (document 2, field flgas, line 10)',
      'imported 1 namespace, 1 flag (one transaction)',
    ]);
  });

  it('refuses files that are no Flipt document, writing nothing', async () => {
    const before = await exported();
    const foreign = {
      'script.sh': ['#!/bin/sh\necho "hello"\n', 'not a Flipt document: expected a map with version, namespace, flags or segments at its top, found the string "echo \\"hello\\"" (document 1, line 2)'],
      'package.json': ['{\n  "name": "app",\n  "version": "1.0.0",\n  "scripts": {}\n}\n', 'not a Flipt document: expected a map with version, namespace, flags or segments at its top, found the keys "name", "version", "scripts" (document 1, line 1)'],
      'compose.yml': ['services:\n  db:\n    image: postgres\n', 'not a Flipt document: expected a map with version, namespace, flags or segments at its top, found the keys "services" (document 1, line 1)'],
    };
    for (const [name, [text, message]] of Object.entries(foreign)) {
      const result = await pennon(['flag', 'import', file(name, text)], { env });
      expect([result.exitCode, result.stderr], name).toEqual([1, `pennon: ${message}`]);
    }
    expect(await exported()).toBe(before);
  });

  it('shows a short excerpt of a large file that fails to parse, never the file', async () => {
    const rows = Array.from({ length: 60_000 }, (_, i) => `{"key": "flag_${i}", "name": "Flag ${i}", "enabled": true}`);
    rows[40_000] = '{"key": "flag_40000", "name": "Flag 40000", "enabled": maybe}';
    const json = file('large.json', `{"flags": [${rows.join(', ')}]}`);
    const yaml = file('large.yml', `flags:\n${rows.map((r) => `- ${r}`).join('\n').replace('"name": "Flag 50000"', '"name": "Flag 50000')}\n`);
    for (const [path, first] of [
      [json, /^pennon: unmarshalling document: json: Unexpected token 'm' \(document 1, line 1\)$/],
      [yaml, /^pennon: unmarshalling document: yaml: [^\n]* \(document 1, line \d+\)$/],
    ] as const) {
      const result = await pennon(['flag', 'import', path], { env });
      expect(result.exitCode).toBe(1);
      const lines = result.stderr.split('\n');
      expect(lines[0]).toMatch(first);
      expect(lines).toHaveLength(3);
      expect(lines[1]).toMatch(/^ {2}\d+ \| .{1,80}$/);
      expect(lines[2]).toMatch(/^ {2} +\| +\^$/);
      expect(result.stderr.length).toBeLessThan(500);
    }
  });
});
