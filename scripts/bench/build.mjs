// Bundles the benchmarks (they import the service's TypeScript) and runs them.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';

const common = { bundle: true, platform: 'node', target: 'node20', format: 'cjs', loader: { '.sql': 'text', '.proto': 'text' }, external: ['better-sqlite3', 'autocannon'], logLevel: 'warning' };
execFileSync(process.execPath, ['esbuild.config.mjs'], { stdio: 'inherit' });
execFileSync(process.execPath, ['scripts/build/sea.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
await build({ ...common, entryPoints: ['scripts/bench/run.ts'], outfile: 'dist/bench/run.cjs' });
await build({ ...common, entryPoints: ['scripts/bench/bare-server.ts'], outfile: 'dist/bench/bare-server.cjs' });
await build({ ...common, entryPoints: ['scripts/bench/bare-grpc.ts'], outfile: 'dist/bench/bare-grpc.cjs' });
await build({ ...common, entryPoints: ['scripts/bench/stream-clients.ts'], outfile: 'dist/bench/stream-clients.cjs' });
execFileSync(process.execPath, ['dist/bench/run.cjs', ...process.argv.slice(2)], { stdio: 'inherit' });
