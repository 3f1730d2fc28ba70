import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pennon, tempDir } from '../support/cli';

/**
 * Issue 16, item 4: `pennon flag import` reads a large YAML document a part at a time, so its
 * memory does not grow with the document. 5,000 flags of the scale shape (3 variants, 10 rules
 * of 3 distributions: 8.7 MB of YAML) under a 120 MB heap: read whole, the same import runs
 * out of memory (it did before parts, at 120 and at 200 MB); in parts it fits, and it is
 * still one transaction. The same for JSON.
 */

const FLAGS = 5000;

function shapeDocument(): string {
  const out: string[] = ['version: "1.4"', 'namespace: default', 'flags:'];
  for (let i = 0; i < FLAGS; i++) {
    out.push(`- key: flag-${i}`, `  name: Flag ${i}`, '  enabled: true', '  variants:', '  - key: control', '  - key: treatment', '    attachment: {color: blue}', '  - key: holdout', '  rules:');
    for (let r = 0; r < 10; r++) {
      out.push(`  - segment: segment-${(i * 10 + r) % 100}`, '    distributions:', '    - {variant: control, rollout: 33}', '    - {variant: treatment, rollout: 33}', '    - {variant: holdout, rollout: 34}');
    }
  }
  out.push('segments:');
  for (let s = 0; s < 100; s++) out.push(`- key: segment-${s}`, `  name: Segment ${s}`, '  constraints:', `  - {type: STRING_COMPARISON_TYPE, property: plan, operator: eq, value: plan-${s}}`);
  return `${out.join('\n')}\n`;
}

/** The same document as data, for JSON. */
function shapeObject() {
  const split = [
    { variant: 'control', rollout: 33 },
    { variant: 'treatment', rollout: 33 },
    { variant: 'holdout', rollout: 34 },
  ];
  return {
    version: '1.4',
    namespace: 'default',
    flags: Array.from({ length: FLAGS }, (_, i) => ({
      key: `flag-${i}`,
      name: `Flag ${i}`,
      enabled: true,
      variants: [{ key: 'control' }, { key: 'treatment', attachment: { color: 'blue' } }, { key: 'holdout' }],
      rules: Array.from({ length: 10 }, (_, r) => ({ segment: `segment-${(i * 10 + r) % 100}`, distributions: split })),
    })),
    segments: Array.from({ length: 100 }, (_, s) => ({
      key: `segment-${s}`,
      name: `Segment ${s}`,
      constraints: [{ type: 'STRING_COMPARISON_TYPE', property: 'plan', operator: 'eq', value: `plan-${s}` }],
    })),
  };
}

describe('pennon flag import of a large document (the built CLI)', () => {
  let dir: string;
  let file: string;
  beforeAll(() => {
    dir = tempDir('pennon-large-');
    file = join(dir, 'large.yml');
    writeFileSync(file, shapeDocument());
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('imports 5,000 flags within a 120 MB heap, in one transaction', async () => {
    const env = { PENNON_DB_URL: `file:${join(dir, 'large.db')}`, NODE_OPTIONS: '--max-old-space-size=120' };
    const result = await pennon(['flag', 'import', file], { env });
    expect(result.exitCode, result.stderr.slice(-2000)).toBe(0);
    expect(result.stderr).toContain('imported 5000 flags, 15000 variants, 100 segments, 100 constraints, 50000 rules, 150000 distributions (one transaction)');
  }, 60_000);

  it('imports the same flags as JSON (one object, as `flag export -o x.json` writes) within the same heap', async () => {
    const env = { PENNON_DB_URL: `file:${join(dir, 'large-json.db')}`, NODE_OPTIONS: '--max-old-space-size=120' };
    const json = join(dir, 'large.json');
    writeFileSync(json, `# exported by hand\n${JSON.stringify(shapeObject())}\n`);
    const result = await pennon(['flag', 'import', json], { env });
    expect(result.exitCode, result.stderr.slice(-2000)).toBe(0);
    expect(result.stderr).toContain('imported 5000 flags, 15000 variants, 100 segments, 100 constraints, 50000 rules, 150000 distributions (one transaction)');
  }, 60_000);

  it('fails a mistake in the last flag with its line, and writes nothing', async () => {
    const env = { PENNON_DB_URL: `file:${join(dir, 'mistake.db')}` };
    const last = `- key: flag-${FLAGS - 1}\n  name: Flag ${FLAGS - 1}\n  enabled: `;
    const text = shapeDocument().replace(`${last}true`, `${last}maybe`);
    const mistake = join(dir, 'mistake.yml');
    writeFileSync(mistake, text);
    const line = text.split('\n').indexOf('  enabled: maybe') + 1;
    expect(line).toBeGreaterThan(100_000);
    const result = await pennon(['flag', 'import', mistake], { env });
    expect(result.exitCode).not.toBe(0);
    expect(result.stderr).toContain(`expected a boolean, found the string "maybe" (document 1, namespace "default", flag "flag-${FLAGS - 1}", field enabled, line ${line})`);
    const exported = await pennon(['flag', 'export'], { env });
    expect(exported.stdout).not.toContain('flag-0');
  }, 60_000);
});
