import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { permissionTable, TABLE_END, TABLE_START } from '../../scripts/docs/permission-table';

/** docs/ROLES.md's permission table is the wire table's (scripts/docs/permission-table.ts): it cannot drift. */

const PAGE = resolve(__dirname, '../../docs/ROLES.md');

describe('docs/ROLES.md', () => {
  it('holds the permission table as internal/wire/permissions.ts has it', () => {
    const page = readFileSync(PAGE, 'utf8');
    const start = page.indexOf(TABLE_START);
    const end = page.indexOf(TABLE_END);
    expect(start, 'the table markers').toBeGreaterThanOrEqual(0);
    expect(end).toBeGreaterThan(start);
    const current = page.slice(start, end + TABLE_END.length);
    if (process.env.PENNON_WRITE_DOCS === '1' && current !== permissionTable()) writeFileSync(PAGE, page.replace(current, permissionTable()));
    else expect(current, 'run PENNON_WRITE_DOCS=1 npx vitest run test/unit/roles-doc.test.ts').toBe(permissionTable());
  });
});
