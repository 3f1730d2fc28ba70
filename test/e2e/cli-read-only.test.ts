import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pennon, tempDir } from '../support/cli';

/**
 * Commands that only read (evaluate, flag export, token list and delete) work on the database
 * that exists: without one they create nothing and say which database they looked for; every
 * "not found" names the database that was read.
 */

const READERS: string[][] = [
  ['evaluate', 'checkout', '-e', 'user-1'],
  ['flag', 'export'],
  ['token', 'list'],
  ['token', 'delete', '00000000-0000-0000-0000-000000000000'],
];

describe('read-only commands (the built CLI)', () => {
  let dir: string;
  beforeAll(() => {
    dir = tempDir('pennon-read-');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('create no database when there is none, and say where they looked and how to configure one', async () => {
    // No configuration at all: the default database under the (temporary) data directory.
    const home = join(dir, 'home');
    const data = join(dir, 'xdg');
    for (const args of READERS) {
      const result = await pennon(args, { env: { HOME: home, XDG_DATA_HOME: data } });
      expect(result.exitCode, args.join(' ')).toBe(1);
      expect(result.stderr).toBe(`pennon: no database at ${join(data, 'pennon', 'pennon.db')}: nothing to read; point --config FILE (db.url) or PENNON_DB_URL at the database to read`);
    }
    expect(existsSync(data)).toBe(false);
    expect(existsSync(home)).toBe(false);

    const named = join(dir, 'named', 'flags.db');
    const result = await pennon(['flag', 'export'], { env: { PENNON_DB_URL: `file:${named}` } });
    expect([result.exitCode, result.stderr]).toEqual([1, `pennon: no database at ${named}: nothing to read; point --config FILE (db.url) or PENNON_DB_URL at the database to read`]);
    expect(existsSync(join(dir, 'named'))).toBe(false);
  });

  it('refuse a database without Pennon tables, and create none in it', async () => {
    const other = join(dir, 'other.db');
    const tables = () => {
      const db = new Database(other);
      try {
        return db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all();
      } finally {
        db.close();
      }
    };
    const setup = new Database(other);
    setup.exec('CREATE TABLE notes (body TEXT)');
    setup.close();
    for (const args of READERS) {
      const result = await pennon(args, { env: { PENNON_DB_URL: `file:${other}` } });
      expect(result.exitCode, args.join(' ')).toBe(1);
      expect(result.stderr).toBe(`pennon: sqlite ${other} has no Pennon tables: nothing to read; point --config FILE (db.url) or PENNON_DB_URL at the database to read`);
    }
    expect(tables()).toEqual([{ name: 'notes' }]);
  });

  it('name the database in every "not found"', async () => {
    const db = join(dir, 'pennon.db');
    const env = { PENNON_DB_URL: `file:${db}` };
    expect((await pennon(['migrate'], { env })).exitCode).toBe(0);
    const evaluate = await pennon(['evaluate', 'nope', '-e', 'user-1'], { env });
    expect([evaluate.exitCode, evaluate.stderr]).toEqual([1, `pennon: flag "default/nope" not found in sqlite ${db}`]);
    const other = await pennon(['evaluate', 'nope', '-n', 'elsewhere'], { env });
    expect([other.exitCode, other.stderr]).toEqual([1, `pennon: flag "elsewhere/nope" not found in sqlite ${db}`]);
    const exported = await pennon(['flag', 'export', '-n', 'elsewhere'], { env });
    expect([exported.exitCode, exported.stderr]).toEqual([1, `pennon: namespace "elsewhere" not found in sqlite ${db}`]);
    const token = await pennon(['token', 'delete', 'b7d7a7a4-0000-4000-8000-000000000000'], { env });
    expect([token.exitCode, token.stderr]).toEqual([1, `pennon: token "b7d7a7a4-0000-4000-8000-000000000000" not found in sqlite ${db}`]);
    const listed = await pennon(['token', 'list', '--json'], { env });
    expect([listed.exitCode, listed.stdout]).toEqual([0, '[]']);
  });
});
