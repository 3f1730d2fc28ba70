import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
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

  // One character outside Latin-1 anywhere in a script and V8 holds all of it as two-byte text:
  // the bundle would cost every process and thread twice its 7.7 MB (esbuild.config.mjs asciiOnly).
  it.each(['pennon.cjs', 'bulk-worker.cjs'])('leaves dist/%s pure ASCII', (file) => {
    const text = readFileSync(join(ROOT, 'dist', file), 'utf8');
    const offender = /[^\x00-\x7f]/.exec(text);
    expect(offender && text.slice(Math.max(0, offender.index - 40), offender.index + 10)).toBeNull();
  });
});
