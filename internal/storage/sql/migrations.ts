import sqlite0001 from '../../../migrations/sqlite/0001_initial.sql';
import sqlite0002 from '../../../migrations/sqlite/0002_authentications.sql';

/** Every dialect's migrations, in order. The SQL text is bundled into the executable. */
export interface Migration {
  name: string;
  sql: string;
}

export const MIGRATIONS: Record<'sqlite', Migration[]> = {
  sqlite: [
    { name: '0001_initial', sql: sqlite0001 },
    { name: '0002_authentications', sql: sqlite0002 },
  ],
};
