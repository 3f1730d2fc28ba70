import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vitest/config';

/** SQL migrations are imported as text, as esbuild's `text` loader does for the bundle. */
function sqlAsText(): Plugin {
  return {
    name: 'sql-as-text',
    load(id) {
      if (!id.endsWith('.sql')) return null;
      return `export default ${JSON.stringify(readFileSync(id, 'utf8'))};`;
    },
  };
}

export default defineConfig({
  plugins: [sqlAsText()],
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default'],
  },
});
