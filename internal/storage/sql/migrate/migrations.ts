import cockroach0001 from '../../../../migrations/cockroach/0001_initial.sql';
import cockroach0002 from '../../../../migrations/cockroach/0002_authentications.sql';
import cockroach0003 from '../../../../migrations/cockroach/0003_list_order.sql';
import cockroach0004 from '../../../../migrations/cockroach/0004_change_log.sql';
import cockroach0005 from '../../../../migrations/cockroach/0005_audit.sql';
import mysql0001 from '../../../../migrations/mysql/0001_initial.sql';
import mysql0002 from '../../../../migrations/mysql/0002_authentications.sql';
import mysql0003 from '../../../../migrations/mysql/0003_list_order.sql';
import mysql0004 from '../../../../migrations/mysql/0004_change_log.sql';
import mysql0005 from '../../../../migrations/mysql/0005_audit.sql';
import postgres0001 from '../../../../migrations/postgres/0001_initial.sql';
import postgres0002 from '../../../../migrations/postgres/0002_authentications.sql';
import postgres0003 from '../../../../migrations/postgres/0003_list_order.sql';
import postgres0004 from '../../../../migrations/postgres/0004_change_log.sql';
import postgres0005 from '../../../../migrations/postgres/0005_audit.sql';
import sqlite0001 from '../../../../migrations/sqlite/0001_initial.sql';
import sqlite0002 from '../../../../migrations/sqlite/0002_authentications.sql';
import sqlite0003 from '../../../../migrations/sqlite/0003_list_order.sql';
import sqlite0004 from '../../../../migrations/sqlite/0004_change_log.sql';
import sqlite0005 from '../../../../migrations/sqlite/0005_audit.sql';
import type { DialectAdapter } from '../dialects/adapter';

/**
 * Every dialect's migrations, in order. The SQL text is bundled into the executable. Each
 * dialect has the same migrations under the same names, and the same schema in its own types.
 */
export interface Migration {
  name: string;
  sql: string;
}

const list = (m0001: string, m0002: string, m0003: string, m0004: string, m0005: string): Migration[] => [
  { name: '0001_initial', sql: m0001 },
  { name: '0002_authentications', sql: m0002 },
  { name: '0003_list_order', sql: m0003 },
  { name: '0004_change_log', sql: m0004 },
  { name: '0005_audit', sql: m0005 },
];

export const MIGRATIONS: Record<DialectAdapter['name'], Migration[]> = {
  sqlite: list(sqlite0001, sqlite0002, sqlite0003, sqlite0004, sqlite0005),
  postgres: list(postgres0001, postgres0002, postgres0003, postgres0004, postgres0005),
  mysql: list(mysql0001, mysql0002, mysql0003, mysql0004, mysql0005),
  cockroach: list(cockroach0001, cockroach0002, cockroach0003, cockroach0004, cockroach0005),
};
