import { execFileSync } from 'node:child_process';

/** Builds the single executable once per test run: the end-to-end tests run what a user runs. */
export default function setup(): void {
  execFileSync(process.execPath, ['esbuild.config.mjs'], { stdio: 'inherit' });
  execFileSync(process.execPath, ['scripts/build/sea.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
}
