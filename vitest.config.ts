import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { defineConfig, type Plugin, type TestProjectInlineConfiguration } from 'vitest/config';

/** SQL migrations and .proto files are imported as text, as esbuild's `text` loader does for the bundle. */
function sqlAsText(): Plugin {
  return {
    name: 'sql-as-text',
    load(id) {
      if (!id.endsWith('.sql') && !id.endsWith('.proto')) return null;
      return `export default ${JSON.stringify(readFileSync(id, 'utf8'))};`;
    },
  };
}

/**
 * Projects. `sqlite` is the whole suite (the storage suites inside it run every configured back
 * end themselves: test/support/backends.ts). The suites that drive a real server — API, auth,
 * evaluation — run once more per external back end, through startServer, which reads
 * PENNON_TEST_BACKEND / PENNON_TEST_CACHE. A back end whose variable is unset is left out with
 * a notice, never silently. One project: `npx vitest run --project postgres`.
 */
const SERVER_SUITES = ['test/integration/api/**/*.test.ts', 'test/integration/auth/**/*.test.ts', 'test/integration/evaluation/**/*.test.ts'];

const has = (name: string) => (process.env[name] ?? '') !== '';
const external: { name: string; env: Record<string, string> }[] = [];
const notices: string[] = [];
if (has('PENNON_TEST_POSTGRES_URL')) external.push({ name: 'postgres', env: { PENNON_TEST_BACKEND: 'postgres' } });
else notices.push('PENNON_TEST_POSTGRES_URL not set: PostgreSQL (and CockroachDB-dialect) suites and projects skipped');
if (has('PENNON_TEST_MYSQL_URL')) external.push({ name: 'mysql', env: { PENNON_TEST_BACKEND: 'mysql' } });
else notices.push('PENNON_TEST_MYSQL_URL not set: MySQL suites and project skipped');
if (has('PENNON_TEST_POSTGRES_URL') && has('PENNON_TEST_REDIS_URL')) {
  external.push({ name: 'postgres+redis', env: { PENNON_TEST_BACKEND: 'postgres', PENNON_TEST_CACHE: 'redis' } });
} else if (!has('PENNON_TEST_REDIS_URL')) notices.push('PENNON_TEST_REDIS_URL not set: Redis cache project skipped');
// Said once here (the config may be evaluated twice); backends.ts need not repeat it per worker.
if (process.env.PENNON_TEST_NOTICES_SHOWN !== '1') for (const notice of notices) console.warn(`\u26a0 ${notice}`);
process.env.PENNON_TEST_NOTICES_SHOWN = '1';

const projects: TestProjectInlineConfiguration[] = [
  {
    extends: true,
    test: {
      name: 'sqlite',
      include: ['test/**/*.test.ts'],
      // Builds the executable once for the end-to-end tests (only this project has them).
      globalSetup: ['test/support/global-setup.ts'],
    },
  },
  ...external.map(
    ({ name, env }): TestProjectInlineConfiguration => ({
      extends: true,
      test: { name, include: SERVER_SUITES, env },
    }),
  ),
];

export default defineConfig({
  plugins: [sqlAsText()],
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Vitest's default is one worker per core minus one — a single worker on a 2-core machine.
    // Most of the suite waits on databases, servers and child processes, so two files at a time
    // take ~40% less time there (measured: 348 s → 213 s for all projects).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    reporters: ['default'],
    projects,
  },
});
