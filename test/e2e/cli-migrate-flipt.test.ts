import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pennon, tempDir } from '../support/cli';
import { createFliptDatabase, fillDataSet, type FliptDatabase } from '../support/flipt-v1';

/** `pennon migrate --from-flipt … --verify` as an operator runs it (the built executable). */
describe('pennon migrate --from-flipt (the built CLI)', () => {
  let source: FliptDatabase;
  let dir: string;
  beforeAll(async () => {
    source = await createFliptDatabase('sqlite', 'v1.61.1');
    await fillDataSet(source);
    dir = tempDir('pennon-migrate-flipt-');
  });
  afterAll(async () => {
    await source.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies, reports the counts and verifies; a second run without --drop is refused with the way out', async () => {
    const env = { PENNON_DB_URL: `file:${join(dir, 'pennon.db')}` };
    const first = await pennon(['migrate', '--from-flipt', source.url, '--verify', '--entities', '200'], { env });
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^copied from Flipt \(schema version 15\): 2 namespaces, 12 flags, 24 variants, 8 segments, 12 constraints, 24 rules, 56 distributions, 8 rollouts, 3 authentications\nverified: \d+ evaluations on Flipt's data and on the copy, no difference$/);
    const second = await pennon(['migrate', '--from-flipt', source.url], { env });
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain('the Pennon database is not empty (12 flags, 8 segments, 3 authentications, 1 namespaces besides default): pass --drop');
    const bad = await pennon(['migrate', '--from-flipt', `file:${join(dir, 'missing.db')}`], { env });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toMatch(/cannot open the SQLite database .*missing\.db/);
  });
});
