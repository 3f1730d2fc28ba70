import type { DbConfig } from '../config';
import type { Clock } from '../core';
import { openDatabase, prepareSchema, storeFor, type Connection, type Store } from '../storage';

export interface OpenedStore {
  connection: Connection;
  store: Store;
}

/** The database URL a configuration names (the url, or the protocol/host/… form). */
export function databaseUrl(db: DbConfig): string {
  if (db.url !== '') return db.url;
  const auth = db.user !== '' ? `${encodeURIComponent(db.user)}${db.password !== '' ? `:${encodeURIComponent(db.password)}` : ''}@` : '';
  const port = db.port > 0 ? `:${db.port}` : '';
  if (db.protocol === 'file' || db.protocol === 'sqlite' || db.protocol === 'sqlite3') return `file:${db.name}`;
  return `${db.protocol}://${auth}${db.host}${port}/${db.name}`;
}

export function openStore(db: DbConfig, clock: Clock): OpenedStore {
  const connection = openDatabase(databaseUrl(db));
  return { connection, store: storeFor(connection, clock) };
}

/**
 * For commands that work on the database directly: a fresh database gets its schema (so CI
 * can create a token before the first `serve`); one with pending migrations is refused.
 */
export async function openPreparedStore(db: DbConfig, clock: Clock): Promise<OpenedStore> {
  const opened = openStore(db, clock);
  try {
    await prepareSchema(opened.connection);
    return opened;
  } catch (err) {
    await opened.connection.close();
    throw err;
  }
}
