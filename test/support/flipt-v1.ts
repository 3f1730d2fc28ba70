import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { createConnection } from 'mysql2/promise';
import pg from 'pg';

/**
 * Real Flipt v1 databases for the tests of `pennon migrate --from-flipt`: the schema Flipt
 * v1.40.0 or v1.61.1 leaves (test/fixtures/flipt-v1/schema, one script per version and dialect),
 * in a temporary SQLite file or a scratch PostgreSQL or MySQL database, and a data set written
 * into it as Flipt writes it (UTC timestamps with fractions, booleans in the dialect's form,
 * tokens as base64url(SHA-256(token))).
 */

export type FliptDialect = 'sqlite' | 'postgres' | 'mysql';
export type FliptVersion = 'v1.40.0' | 'v1.61.1';

export interface FliptDatabase {
  /** The URL Flipt's `db.url` would hold. */
  url: string;
  dialect: FliptDialect;
  version: FliptVersion;
  /** Runs one statement with `?` placeholders. */
  run(statement: string, params?: unknown[]): Promise<void>;
  drop(): Promise<void>;
}

const SCHEMA_DIR = resolve(__dirname, '../fixtures/flipt-v1/schema');

function statements(version: FliptVersion, dialect: FliptDialect): string[] {
  const script = readFileSync(join(SCHEMA_DIR, version, `${dialect}.sql`), 'utf8');
  return script
    .split(/;\s*\n/)
    .map((s) => s.replace(/^\s*--.*$/gm, '').trim())
    .filter((s) => s !== '');
}

export async function createFliptDatabase(dialect: FliptDialect, version: FliptVersion, adminUrl?: string): Promise<FliptDatabase> {
  const name = `flipt_src_${randomBytes(4).toString('hex')}`;
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'flipt-v1-'));
    const path = join(dir, 'flipt.db');
    const db = new BetterSqlite3(path);
    for (const s of statements(version, dialect)) db.exec(s);
    return {
      url: `file:${path}`,
      dialect,
      version,
      run: async (statement, params = []) => void db.prepare(statement).run(...(params as unknown[])),
      drop: async () => {
        db.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!adminUrl) throw new Error(`${dialect} needs an admin URL`);
  if (dialect === 'postgres') {
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    const client = new pg.Client({ connectionString: url.toString() });
    await client.connect();
    for (const s of statements(version, dialect)) await client.query(s);
    return {
      url: url.toString(),
      dialect,
      version,
      run: async (statement, params = []) => {
        let n = 0;
        await client.query(statement.replace(/\?/g, () => `$${++n}`), params);
      },
      drop: async () => {
        await client.end();
        await admin.query(`DROP DATABASE IF EXISTS ${name}`);
        await admin.end();
      },
    };
  }
  const admin = await createConnection(adminUrl);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const client = await createConnection({ uri: url.toString(), timezone: 'Z' });
  for (const s of statements(version, dialect)) await client.query(s);
  return {
    url: url.toString(),
    dialect,
    version,
    // `key` is a reserved word in MySQL: quoted as Flipt's queries quote it.
    run: async (statement, params = []) => void (await client.query(statement.replace(/\bkey\b/g, '`key`'), params)),
    drop: async () => {
      await client.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    },
  };
}

/** As Flipt stores a client token: SHA-256, in URL-safe base64 with its padding (Go's base64.URLEncoding). */
export const hashToken = (token: string) => createHash('sha256').update(token).digest('base64').replace(/\+/g, '-').replace(/\//g, '_');

/** A timestamp as the dialect's driver would have written it for Flipt (UTC; SQLite as Go's driver formats it). */
function stamp(dialect: FliptDialect, ms: number, extraMicros = 0): string {
  const iso = new Date(ms).toISOString(); // 2024-01-02T15:04:05.123Z
  const micros = `${iso.slice(20, 23)}${String(extraMicros).padStart(3, '0')}`;
  const base = `${iso.slice(0, 10)} ${iso.slice(11, 19)}`;
  return dialect === 'sqlite' ? `${base}.${micros}789+00:00` : `${base}.${micros}`;
}

export interface DataSet {
  /** Client tokens as applications hold them. */
  tokens: { admin: string; expired: string; scoped: string };
  /** Counts per kind (the default namespace included). */
  counts: Record<'namespaces' | 'flags' | 'variants' | 'segments' | 'constraints' | 'rules' | 'distributions' | 'rollouts' | 'authentications', number>;
}

/**
 * Every object kind: two namespaces, variant and boolean flags (metadata and a default variant on
 * v1.61.1), attachments, segments with constraints of every comparison type, single- and
 * multi-segment rules (AND and OR), distributions splitting 100%, threshold and segment rollouts
 * (one over two segments), and tokens — one for everything, one expired, one scoped to a
 * namespace.
 */
export async function fillDataSet(db: FliptDatabase): Promise<DataSet> {
  const { dialect } = db;
  const b = (v: boolean) => (dialect === 'postgres' ? v : v ? 1 : 0);
  let clock = Date.UTC(2025, 2, 1, 9, 0, 0);
  const t = () => stamp(dialect, (clock += 1000), 123);
  const v161 = db.version === 'v1.61.1';

  await db.run('INSERT INTO namespaces (key, name, description, protected, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', ['team', 'Team', 'the team', b(false), t(), t()]);
  const counts = { namespaces: 2, flags: 0, variants: 0, segments: 0, constraints: 0, rules: 0, distributions: 0, rollouts: 0, authentications: 0 };

  const segments: [string, number, [number, string, string, string][]][] = [
    ['beta', 1, [[1, 'plan', 'eq', 'beta']]],
    ['big', 0, [[2, 'seats', 'gte', '10'], [4, 'signup', 'lt', '2026-01-01T00:00:00Z']]],
    ['eu', 1, [[1, 'country', 'isoneof', '["fr","de"]']]],
    ['staff', 0, [[3, 'staff', 'true', ''], [5, '', 'eq', 'entity-7']]],
  ];
  for (const ns of ['default', 'team']) {
    for (const [key, match, constraints] of segments) {
      await db.run('INSERT INTO segments (namespace_key, key, name, description, match_type, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [ns, key, key.toUpperCase(), `the ${key} segment`, match, t(), t()]);
      counts.segments++;
      for (const [i, [type, property, operator, value]] of constraints.entries()) {
        await db.run('INSERT INTO constraints (id, namespace_key, segment_key, type, property, operator, value, description, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)', [
          `c-${ns}-${key}-${i}`,
          ns,
          key,
          type,
          property,
          operator,
          value,
          i === 0 ? 'first' : '',
          t(),
          t(),
        ]);
        counts.constraints++;
      }
    }
    for (let f = 0; f < 6; f++) {
      const key = `flag-${f}`;
      const boolean = f >= 4;
      const cols = ['namespace_key', 'key', 'name', 'description', 'enabled', 'type', 'created_at', 'updated_at'];
      const values: unknown[] = [ns, key, `Flag ${f}`, f % 2 ? 'odd' : '', b(f !== 3), boolean ? 1 : 0, t(), t()];
      if (v161 && f === 1) {
        cols.push('metadata');
        values.push(JSON.stringify({ owner: 'web', weight: 2 }));
      }
      await db.run(`INSERT INTO flags (${cols.join(', ')}) VALUES (${cols.map(() => '?').join(', ')})`, values);
      counts.flags++;
      if (boolean) {
        const segmentRollout = `ro-${ns}-${key}-s`;
        const thresholdRollout = `ro-${ns}-${key}-t`;
        await db.run('INSERT INTO rollouts (id, namespace_key, flag_key, type, description, rank, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [segmentRollout, ns, key, 1, 'staff and big', 1, t(), t()]);
        await db.run('INSERT INTO rollout_segments (id, rollout_id, value, segment_operator) VALUES (?, ?, ?, ?)', [`rs-${segmentRollout}`, segmentRollout, b(true), f === 4 ? 1 : 0]);
        for (const s of ['big', 'staff']) {
          await db.run('INSERT INTO rollout_segment_references (rollout_segment_id, namespace_key, segment_key) VALUES (?, ?, ?)', [`rs-${segmentRollout}`, ns, s]);
        }
        await db.run('INSERT INTO rollouts (id, namespace_key, flag_key, type, description, rank, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)', [thresholdRollout, ns, key, 2, '', 2, t(), t()]);
        await db.run('INSERT INTO rollout_thresholds (id, namespace_key, rollout_id, percentage, value) VALUES (?, ?, ?, ?, ?)', [`rt-${thresholdRollout}`, ns, thresholdRollout, 37.5, b(f === 5)]);
        counts.rollouts += 2;
        continue;
      }
      const variantIds: string[] = [];
      for (const [i, v] of ['red', 'green', 'blue'].entries()) {
        const id = `v-${ns}-${key}-${v}`;
        variantIds.push(id);
        const attachment = i === 0 ? '{"hex": "#f00", "tags": ["a", "b"]}' : null;
        await db.run('INSERT INTO variants (id, namespace_key, flag_key, key, name, description, attachment, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)', [id, ns, key, v, v.toUpperCase(), '', attachment, t(), t()]);
        counts.variants++;
      }
      if (v161 && f === 2) await db.run('UPDATE flags SET default_variant_id = ? WHERE namespace_key = ? AND key = ?', [variantIds[2], ns, key]);
      const rules: [string[], number, number[]][] = [
        [['beta'], 0, [50, 30, 20]],
        [['big', 'eu'], 1, [33.34, 33.33, 33.33]],
        [['staff', 'eu'], 0, [100]],
      ];
      for (const [r, [keys, operator, split]] of rules.entries()) {
        const ruleId = `r-${ns}-${key}-${r}`;
        await db.run('INSERT INTO rules (id, namespace_key, flag_key, rank, segment_operator, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [ruleId, ns, key, r + 1, operator, t(), t()]);
        counts.rules++;
        for (const s of keys) await db.run('INSERT INTO rule_segments (rule_id, namespace_key, segment_key) VALUES (?, ?, ?)', [ruleId, ns, s]);
        for (const [i, rollout] of split.entries()) {
          await db.run('INSERT INTO distributions (id, rule_id, variant_id, rollout, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)', [`d-${ruleId}-${i}`, ruleId, variantIds[(i + r) % 3], rollout, t(), t()]);
          counts.distributions++;
        }
      }
    }
  }

  const tokens = { admin: `flipt-admin-${randomBytes(6).toString('hex')}`, expired: `flipt-expired-${randomBytes(6).toString('hex')}`, scoped: `flipt-scoped-${randomBytes(6).toString('hex')}` };
  const auth = async (id: string, token: string, metadata: Record<string, string>, expiresAt: string | null) => {
    await db.run('INSERT INTO authentications (id, hashed_client_token, method, metadata, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)', [id, hashToken(token), 1, JSON.stringify(metadata), expiresAt, t(), t()]);
    counts.authentications++;
  };
  await auth('a-admin', tokens.admin, { 'io.flipt.auth.token.name': 'ci', 'io.flipt.auth.token.description': 'the CI token' }, stamp(dialect, Date.UTC(2035, 0, 1)));
  await auth('a-expired', tokens.expired, { 'io.flipt.auth.token.name': 'old' }, stamp(dialect, Date.UTC(2024, 0, 1)));
  await auth('a-scoped', tokens.scoped, { 'io.flipt.auth.token.name': 'team only', 'io.flipt.auth.token.namespace': 'team' }, null);
  return { tokens, counts };
}
