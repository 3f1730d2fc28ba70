import { describe, expect, it } from 'vitest';
import { PennonError } from '../../../internal/core';
import { openDatabase, storeFor, type SqlStore } from '../../../internal/storage/sql';
import { systemClock } from '../../../internal/core';
import { backends } from '../../support/backends';
import { expectPennonError, flagInput, segmentInput, useStore, variantInput } from '../../support/store';

/**
 * Driver errors reach callers as domain errors, on every back end: unique → invalid "… is not
 * unique", foreign key → not found, unreachable → unavailable; never with SQL text.
 */
const noSql = (err: PennonError) => expect(err.message).not.toMatch(/insert|select|update|delete|constraint|violates|duplicate|\bsql/i);

describe.each(backends())('driver errors on $name', (backend) => {
  const t = useStore(backend);

  it('a duplicate key is invalid "… is not unique"', async () => {
    await t.store.createFlag('default', flagInput('dup'));
    noSql(await expectPennonError(t.store.createFlag('default', flagInput('dup')), 'invalid', 'flag "default/dup" is not unique'));
    await t.store.createSegment('default', 'seg', segmentInput());
    noSql(await expectPennonError(t.store.createSegment('default', 'seg', segmentInput()), 'invalid', 'segment "default/seg" is not unique'));
    await t.store.createVariant('default', 'dup', variantInput('v'));
    noSql(await expectPennonError(t.store.createVariant('default', 'dup', variantInput('v')), 'invalid', 'variant "v" is not unique for flag "default/dup"'));
    await t.store.createNamespace({ key: 'ns', name: 'NS', description: '' });
    noSql(await expectPennonError(t.store.createNamespace({ key: 'ns', name: 'NS', description: '' }), 'invalid', 'namespace "ns" is not unique'));
    // Keys are case-sensitive everywhere (utf8mb4_bin on MySQL, "C" on PostgreSQL).
    expect((await t.store.createFlag('default', flagInput('DUP'))).key).toBe('DUP');
  });

  /** Runs raw SQL on the connection and returns what the store makes of its error. */
  const translated = async (run: () => Promise<unknown>): Promise<PennonError> => {
    const raw = await run().then(
      () => null,
      (e: unknown) => e,
    );
    expect(raw, 'the statement should have failed').not.toBeNull();
    const err = (t.store as SqlStore).translate(raw);
    expect(err).toBeInstanceOf(PennonError);
    noSql(err as PennonError);
    return err as PennonError;
  };

  it('a unique violation the store did not check for is still invalid "not unique"', async () => {
    const row = (id: string) => ({ id, method: 1, hashed_client_token: 'same', metadata: '{}', expires_at: null, created_at: 1, updated_at: 1 });
    await t.connection.db.insertInto('authentications').values(row('id-0')).execute();
    const err = await translated(() => t.connection.db.insertInto('authentications').values(row('id-1')).execute());
    expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'invalid', message: 'not unique' });
  });

  it('a foreign-key violation is not found', async () => {
    const err = await translated(() =>
      t.connection.db
        .insertInto('flags')
        .values({ namespace_key: 'nowhere', key: 'f', name: 'F', description: '', enabled: 0, type: 0, default_variant_id: null, metadata: null, created_at: 1, updated_at: 1 })
        .execute(),
    );
    expect({ kind: err.kind, message: err.message }).toEqual({ kind: 'not_found', message: 'associated resource not found' });
  });

  it('33.33 and other percentages come back exactly (double precision, not float4)', async () => {
    await t.store.createFlag('default', flagInput('pct', { type: 'BOOLEAN_FLAG_TYPE' }));
    const created = await t.store.createRollout('default', 'pct', 1, { description: '', segment: null, threshold: { percentage: 33.33, value: true } });
    expect((await t.store.getRollout('default', 'pct', created.id)).threshold!.percentage).toBe(33.33);
    const data = await t.store.loadNamespace('default');
    expect(data!.rollouts[0].threshold!.percentage).toBe(33.33);
    // Timestamps and counts arrive as numbers, not strings (int8 / BIGINT).
    const page = await t.store.listFlags('default', { limit: 0, offset: 0 });
    expect(typeof page.total).toBe('number');
    expect(typeof page.items[0].createdAt).toBe('number');
    expect(typeof data!.flags[0].createdAt).toBe('number');
  });

  it('a key with a character the database cannot hold is a 400-class error, never a 500', async () => {
    const outcome = await t.store.getFlag('default', 'nul\u0000byte').catch((e: unknown) => e);
    expect(outcome).toBeInstanceOf(PennonError);
    expect(['not_found', 'invalid']).toContain((outcome as PennonError).kind);
  });

  it.runIf(backend.name !== 'sqlite')('an unreachable server is unavailable (connection refused), not an internal error', async () => {
    // Port 1 on loopback: nothing listens there.
    const url = backend.name === 'mysql' ? 'mysql://root@127.0.0.1:1/test' : backend.name === 'postgres' ? 'postgres://postgres@127.0.0.1:1/postgres' : 'cockroach://root@127.0.0.1:1/defaultdb';
    const conn = openDatabase(url);
    try {
      const err = await storeFor(conn, systemClock()).getFlag('default', 'x').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(PennonError);
      expect({ kind: (err as PennonError).kind, message: (err as PennonError).message }).toEqual({ kind: 'unavailable', message: 'the database is unavailable' });
    } finally {
      await conn.close();
    }
  });
});
