import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The databases a suite runs against. SQLite always; the external ones when their
 * PENNON_TEST_*_URL variable is set (CI sets them all). Each `create()` gives a fresh,
 * empty database and a cleanup function.
 */
export interface Backend {
  name: string;
  create(): Promise<{ url: string; cleanup(): Promise<void> }>;
}

const sqlite: Backend = {
  name: 'sqlite',
  async create() {
    const dir = mkdtempSync(join(tmpdir(), 'pennon-db-'));
    return { url: `file:${join(dir, 'pennon.db')}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  },
};

export function backends(): Backend[] {
  return [sqlite];
}
