import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir } from '../support/cli';

/**
 * The single-executable step as `npm run build` runs it (on the bundle the global setup built),
 * into a directory of its own: it says what it built and nothing else — in particular none of
 * the "Can't find string offset for section name '.note…'" lines postject's LIEF printed for
 * Node's annobin notes (scripts/build/elf-notes.mjs) — and what it built runs.
 */

const ROOT = resolve(__dirname, '../..');

describe('the executable build', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('pennon-build-');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('prints no warnings, and the result runs', async () => {
    const out = join(dir, 'pennon');
    const build = await execa(process.execPath, ['scripts/build/sea.mjs', '--out', out], { cwd: ROOT, reject: false });
    expect(build.exitCode, build.stderr).toBe(0);
    expect(build.stdout).toBe(`built ${out} (pennon ${execFileSync(out, ['--version'], { encoding: 'utf8' }).trim()})`);
    // Node's own note about the blob it prepared is the only line left on stderr.
    expect(build.stderr.split('\n').filter((line) => !/^Wrote single executable preparation blob to dist\/pennon-\d+\.blob$/.test(line))).toEqual([]);
  }, 120_000);
});
