// Turns dist/pennon.cjs into dist/pennon: Node's single-executable-application support, with
// the local Node binary, the bundle as the SEA main script (with a V8 code cache, for start-up
// time), better-sqlite3's native addon and the import thread's script (dist/bulk-worker.cjs)
// as SEA assets. Injected with postject's API (@yao-pkg/pkg's SEA helper shells out to `npx
// postject` and swallows its failure). The build
// fails unless the result really runs the bundle. `--out PATH` builds elsewhere than dist/pennon.
import { execFileSync } from 'node:child_process';
import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { inject } from 'postject';
import { retypeBuildAttributeNotes } from './elf-notes.mjs';

const require = createRequire(import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
const out = parseArgs({ options: { out: { type: 'string', default: 'dist/pennon' } } }).values.out;
// Built under temporary names and renamed into place once proven, so that a test run using
// dist/pennon while another build runs never finds a half-made file.
const building = `${out}.building-${process.pid}`;
const blob = `dist/pennon-${process.pid}.blob`;
const config = `dist/sea-config-${process.pid}.json`;

writeFileSync(
  config,
  JSON.stringify({
    main: 'dist/pennon.cjs',
    output: blob,
    disableExperimentalSEAWarning: true,
    useCodeCache: true,
    assets: { 'better_sqlite3.node': require.resolve('better-sqlite3/build/Release/better_sqlite3.node'), 'bulk-worker.cjs': 'dist/bulk-worker.cjs' },
  }),
);
execFileSync(process.execPath, ['--experimental-sea-config', config], { stdio: ['ignore', 'ignore', 'inherit'] });

const node = readFileSync(process.execPath);
retypeBuildAttributeNotes(node); // see elf-notes.mjs: the source of LIEF's '.note.100' warnings
writeFileSync(building, node, { mode: 0o755 });
await injectQuietly(building, readFileSync(blob));
rmSync(blob);
rmSync(config);

/**
 * postject's LIEF names the section it adds for our blob after the note's type (".note") and
 * warns that it cannot find that name among the section names: the section is left unnamed,
 * which nothing needs (Node finds the blob through the PT_NOTE segment). LIEF prints through
 * console.warn, bound when `inject` loads it; that one line is dropped, anything else it says
 * is passed on.
 */
async function injectQuietly(file, data) {
  const warn = console.warn;
  const said = [];
  console.warn = (...args) => said.push(args.join(' '));
  try {
    await inject(file, 'NODE_SEA_BLOB', data, { sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2' });
  } finally {
    console.warn = warn;
    for (const line of said) if (line !== "warning: Can't find string offset for section name '.note'") warn(line);
  }
}

// The proof: a plain copy of node would print its own version, not ours.
let version = '';
try {
  version = execFileSync(building, ['--version'], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } }).trim();
} catch (err) {
  rmSync(building, { force: true });
  throw new Error(`the built executable does not start: ${err.message}`);
}
if (version !== pkg.version) {
  rmSync(building, { force: true });
  throw new Error(`the built executable printed "${version}" for --version, expected "${pkg.version}": the bundle was not injected`);
}
renameSync(building, out);
console.log(`built ${out} (pennon ${version})`);
