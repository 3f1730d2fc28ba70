/**
 * The rooms' rules (docs/ARCHITECTURE.md, "Rooms and what they may import"), checked by
 * dependency-cruiser as part of `npm test` (`npm run rooms`, after tsc, before vitest). Each
 * room's row of the table is one entry of ROOMS below, and becomes one rule named after the
 * room (what it may not import), plus one per qualified entry ("types", "index", "modules",
 * named files). A broken rule prints its name and the table row it comes from.
 *
 * Qualifiers, as the table writes them:
 *   'any'      the room, any file, any import
 *   'types'    type-only imports (`import type`): no code of that room runs here
 *   'index'    only through its index.ts files (the room's, or a sub-folder's: storage/sql/index.ts)
 *   'modules'  its modules but not its index (core's index loads node:crypto; the dashboard bundles these)
 *   [files]    only these files of it
 */
const { builtinModules } = require('node:module');

const TABLE = 'docs/ARCHITECTURE.md, "Rooms and what they may import"';

/** One row per room: the rooms it may import, with how. Keep in step with the table. */
const ROOMS = {
  config: {},
  core: {},
  storage: { core: 'any' },
  management: { core: 'any', storage: 'types' },
  evaluation: { core: 'modules' },
  snapshots: { core: 'any', evaluation: 'any', storage: 'types' },
  live: { core: 'any', snapshots: 'types' },
  git: { core: 'any', config: 'any', evaluation: 'any', ext: 'any', storage: 'types' },
  auth: { core: 'any', config: 'any', storage: 'types', cache: 'types' },
  cache: { core: 'any', config: 'any', telemetry: 'any', storage: 'types' },
  client: { core: 'any', storage: 'types', ext: 'types', wire: 'any' },
  ext: { core: 'any', management: 'index', storage: 'types' },
  wire: { core: 'modules', evaluation: 'types' },
  server: {
    core: 'any',
    config: 'any',
    auth: 'any',
    management: 'any',
    evaluation: 'any',
    snapshots: 'any',
    live: 'any',
    storage: 'types',
    webhook: 'any',
    git: 'types',
    ext: 'any',
    telemetry: 'any',
    wire: 'any',
  },
  license: {},
  webhook: { core: ['json-depth.ts'] },
  telemetry: { config: 'any', core: 'any' },
  audit: { core: 'any', config: 'any', storage: 'types', telemetry: 'any', wire: 'any' },
  // Every other room; storage through its index files: a driver's details stay behind its dialect adapter.
  service: {
    config: 'any',
    core: 'any',
    storage: 'index',
    management: 'any',
    evaluation: 'any',
    snapshots: 'any',
    live: 'any',
    git: 'any',
    auth: 'any',
    cache: 'any',
    client: 'any',
    ext: 'any',
    wire: 'any',
    server: 'any',
    license: 'any',
    webhook: 'any',
    telemetry: 'any',
    audit: 'any',
  },
};


const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const describeEntry = ([room, how]) => {
  if (how === 'any') return `\`${room}\``;
  if (Array.isArray(how)) return `\`${room}\`'s ${how.map((f) => `\`${f}\``).join(', ')} only`;
  return `\`${room}\` (${{ types: 'types', index: 'its index', modules: 'its modules, not its index' }[how]})`;
};
const rowOf = (room) => {
  const entries = Object.entries(ROOMS[room]);
  const may = entries.length === 0 ? 'no other room' : entries.map(describeEntry).join(', ');
  return `${TABLE}, row internal/${room}: may import ${may}.`;
};
/** A rule for `room`: what its files may not import. */
function roomRule(room, name, to, comment) {
  return [{ name, severity: 'error', comment, from: { path: `^internal/${room}/` }, to }];
}

function rulesFor(room) {
  const row = rowOf(room);
  const allowed = [room, ...Object.keys(ROOMS[room])];
  const rules = roomRule(room, `room:${room}`, { path: `^(internal/(?!(${allowed.map(escape).join('|')})/)|cmd/|web/|test/|scripts/)` }, row);
  for (const [other, how] of Object.entries(ROOMS[room])) {
    const base = `^internal/${other}/`;
    if (how === 'types') rules.push(...roomRule(room, `room:${room} (${other}: types only)`, { path: base, dependencyTypesNot: ['type-only'] }, row));
    if (how === 'index') rules.push(...roomRule(room, `room:${room} (${other}: through its index)`, { path: base, pathNot: `${base}(index|[^/]+/index)\\.ts$` }, row));
    if (how === 'modules') rules.push(...roomRule(room, `room:${room} (${other}: not its index)`, { path: `${base}index\\.ts$` }, row));
    if (Array.isArray(how)) rules.push(...roomRule(room, `room:${room} (${other}: ${how.join(', ')} only)`, { path: base, pathNot: `${base}(${how.map(escape).join('|')})$` }, row));
  }
  return rules;
}

/** Node's own modules, as dependency-cruiser names them (`node:fs` is `fs`; `fs/promises` is listed). */
const NODE_API = `^(${builtinModules.filter((name) => !name.startsWith('_')).map(escape).join('|')})$`;

/** The internal/ files cmd/ may import at once: each imports nothing (room:cmd (leaves) holds them to it). */
const CMD_LEAVES = ['^internal/core/build-info\\.ts$', '^internal/core/goparse\\.ts$', '^internal/config/duration\\.ts$'];

/** Code the dashboard bundles: no Node API may be reachable from it, nor anything outside internal/. */
const BROWSER_SAFE = ['^internal/evaluation/', '^internal/wire/'];

/**
 * Packages the browser-safe code may use: pure JavaScript that reaches no Node API.
 * secure-json-parse (wire/json-body.ts) only checks `typeof Buffer` before using it.
 */
const BROWSER_SAFE_PACKAGES = ['^node_modules/secure-json-parse/'];

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: `A cycle between files (type-only imports count). ${TABLE}: the rooms' imports go one way.`,
      from: {},
      to: { circular: true },
    },
    ...Object.keys(ROOMS).flatMap(rulesFor),
    {
      name: 'room:web',
      severity: 'error',
      comment: `${TABLE} and "The dashboard": web/ uses only the public API, and bundles internal/evaluation, core's modules (not its index) and internal/wire.`,
      from: { path: '^web/' },
      to: {
        path: '^(internal|cmd|test|scripts)/',
        pathNot: ['^internal/evaluation/', '^internal/core/(?!index\\.ts$)[^/]+\\.ts$', '^internal/wire/'],
      },
    },
    {
      name: 'room:web (no Node API)',
      severity: 'error',
      comment: `${TABLE}, "The dashboard": the browser has no Node API; none may be reachable from web/.`,
      from: { path: '^web/' },
      to: { path: NODE_API, reachable: true },
    },
    {
      name: 'browser-safe (no Node API, no package)',
      severity: 'error',
      comment: `${TABLE}: internal/evaluation and internal/wire have no Node APIs (the dashboard bundles them): they reach only internal/ files and the pure packages of BROWSER_SAFE_PACKAGES.`,
      from: { path: BROWSER_SAFE },
      to: { pathNot: ['^internal/', ...BROWSER_SAFE_PACKAGES], reachable: true },
    },
    {
      name: 'room:cmd (lazy)',
      severity: 'error',
      comment: `DEVELOPERS.md, "Commands import the service lazily": cmd/ imports internal/ with await import(...) or as types, so --help and --version load nothing. Only files that import nothing themselves (CMD_LEAVES) are imported at once.`,
      from: { path: '^cmd/' },
      to: { path: '^internal/', pathNot: CMD_LEAVES, dynamic: false, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'room:cmd (leaves)',
      severity: 'error',
      comment: 'The internal/ files cmd/ imports at once (room:cmd (lazy)) import nothing, so they cost a command nothing to load.',
      from: { path: CMD_LEAVES },
      to: {},
    },
    {
      name: 'room:cmd (no tests, scripts or web)',
      severity: 'error',
      comment: 'cmd/ is bundled into the executable: it imports internal/ and packages, never test/, scripts/ or web/ sources.',
      from: { path: '^cmd/' },
      to: { path: '^(test|scripts|web)/' },
    },
  ],
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)/' },
  },
};

// For test/unit/rooms.test.ts (the rows against docs/ARCHITECTURE.md's table, and no cycle among
// the rooms); not enumerable, so dependency-cruiser's own check of this file does not see it.
Object.defineProperty(module.exports, 'rooms', { value: ROOMS, enumerable: false });
