import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../../../internal/core';
import {
  migrate,
  openDatabase,
  pendingMigrations,
  prepareSchema,
  PendingMigrationsError,
  storeFor,
  type Connection,
} from '../../../internal/storage';
import { backends } from '../../support/backends';
import { flagInput } from '../../support/store';

/**
 * Schema management: a fresh database is migrated by prepareSchema; an existing database that is
 * behind is refused with a PendingMigrationsError telling the operator to run `pennon migrate`.
 */
describe.each(backends())('migrations on $name', (backend) => {
  let connection: Connection;
  let cleanup: () => Promise<void>;

  beforeEach(async () => {
    const db = await backend.create();
    cleanup = db.cleanup;
    connection = openDatabase(db.url);
  });
  afterEach(async () => {
    await connection.close();
    await cleanup();
  });

  it('reports every migration pending on a fresh database and none after prepareSchema', async () => {
    const pending = await pendingMigrations(connection);
    expect(pending.length).toBeGreaterThan(0);
    expect(new Set(pending).size).toBe(pending.length);
    const { applied } = await prepareSchema(connection);
    expect(applied).toEqual(pending);
    expect(await pendingMigrations(connection)).toEqual([]);
    // Idempotent: a second start applies nothing.
    expect(await prepareSchema(connection)).toEqual({ applied: [] });
    const store = storeFor(connection, systemClock());
    expect((await store.getNamespace('default')).protected).toBe(true);
  });

  it('`migrate` brings a fresh database up to date too', async () => {
    const pending = await pendingMigrations(connection);
    expect(await migrate(connection)).toEqual(pending);
    expect(await pendingMigrations(connection)).toEqual([]);
    expect(await migrate(connection)).toEqual([]);
    expect(await prepareSchema(connection)).toEqual({ applied: [] });
  });

  it('refuses a database whose migration table lacks a known migration, and leaves it untouched', async () => {
    const all = await pendingMigrations(connection);
    await prepareSchema(connection);
    const store = storeFor(connection, systemClock());
    await store.createFlag('default', flagInput('keep'));

    const missing = all[all.length - 1];
    await sql`DELETE FROM pennon_migrations WHERE name = ${missing}`.execute(connection.db);
    expect(await pendingMigrations(connection)).toEqual([missing]);

    const outcome = await prepareSchema(connection).then(
      (value) => ({ resolved: value }),
      (error: unknown) => ({ rejected: error }),
    );
    expect('rejected' in outcome, `prepareSchema resolved with ${JSON.stringify(outcome)}`).toBe(true);
    const err = (outcome as { rejected: unknown }).rejected;
    expect(err, `prepareSchema threw ${String(err)}`).toBeInstanceOf(PendingMigrationsError);
    expect((err as PendingMigrationsError).pending).toEqual([missing]);
    expect((err as Error).message).toContain('`pennon migrate`');
    expect((err as Error).message).toContain(missing);

    // Refusing must not have changed anything.
    expect(await pendingMigrations(connection)).toEqual([missing]);
    expect((await store.getFlag('default', 'keep')).key).toBe('keep');
  });
});
