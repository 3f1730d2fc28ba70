import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * The rooms' import rules (.dependency-cruiser.cjs, run by `npm test`): they catch what
 * docs/ARCHITECTURE.md's table forbids, in a tree of small files written for it, and say which
 * rule and which row; their rows are the table's; the rooms' order has no cycle.
 */

const ROOT = join(__dirname, '../..');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');
const DEPCRUISE = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');

type How = 'any' | 'types' | 'index' | 'modules' | string[];
const config = createRequire(__filename)(CONFIG) as { rooms: Record<string, Record<string, How>> };

const made: string[] = [];
afterAll(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** A project of its own: these files, a tsconfig, and the repository's rules, cruised as `npm test` does. */
function cruise(files: Record<string, string>): { status: number | null; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'pennon-rooms-'));
  made.push(dir);
  const all = { 'tsconfig.json': JSON.stringify({ compilerOptions: { module: 'ESNext', moduleResolution: 'Bundler', strict: true } }), ...files };
  for (const [path, text] of Object.entries(all)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const roots = ['cmd', 'internal', 'web'].filter((root) => Object.keys(files).some((path) => path.startsWith(`${root}/`)));
  const run = spawnSync(process.execPath, [DEPCRUISE, '--config', CONFIG, '--output-type', 'err-long', ...roots], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Stubs for the files the cases import. */
const STUBS: Record<string, string> = {
  'internal/core/index.ts': "export * from './types';\nexport { now } from './clock';\n",
  'internal/core/types.ts': 'export type Flag = { key: string };\n',
  'internal/core/clock.ts': "import { randomUUID } from 'node:crypto';\nexport const now = () => randomUUID();\n",
  'internal/core/build-info.ts': "export const VERSION = 'dev';\n",
  'internal/config/index.ts': 'export const config = {};\n',
  'internal/storage/index.ts': "export type Store = { name: string };\nexport const openDatabase = () => 'db';\n",
  'internal/management/index.ts': "export { required } from './validate';\n",
  'internal/management/validate.ts': 'export const required = (value: string) => value !== "";\n',
  'internal/auth/index.ts': 'export class Authenticator {}\n',
  'internal/server/index.ts': 'export const buildApp = () => 1;\n',
  'internal/service/index.ts': 'export const startService = () => 1;\n',
  'internal/evaluation/index.ts': "import type { Flag } from '../core/types';\nexport const evaluate = (flag: Flag) => flag.key;\n",
};

describe('the rooms rules', () => {
  it('pass a tree that keeps them', () => {
    const { status, output } = cruise({
      ...STUBS,
      'internal/management/flags.ts': "import type { Store } from '../storage';\nimport { now } from '../core';\nexport const f = (s: Store) => `${s.name}${now()}`;\n",
      'internal/ext/plan.ts': "import { required } from '../management';\nexport const p = required('x');\n",
      'web/src/console.ts': "import { evaluate } from '../../internal/evaluation';\nexport const c = evaluate({ key: 'k' });\n",
      'cmd/serve.ts': "import type { Store } from '../internal/storage';\nimport { VERSION } from '../internal/core/build-info';\nexport const run = async (s: Store) => (await import('../internal/service')).startService() + VERSION + s.name;\n",
    });
    expect(output).toContain('no dependency violations found');
    expect(status).toBe(0);
  });

  it('fail on each kind of breach, naming the rule and the table row', () => {
    const { status, output } = cruise({
      ...STUBS,
      // A room the row does not list (core may import nothing).
      'internal/core/uses-config.ts': "import { config } from '../config';\nexport const c = config;\n",
      // storage (types): a value import.
      'internal/management/opens.ts': "import { openDatabase } from '../storage';\nexport const o = openDatabase();\n",
      // management (its index): one of its files.
      'internal/ext/deep.ts': "import { required } from '../management/validate';\nexport const d = required('x');\n",
      // core (its modules, not its index).
      'internal/evaluation/whole-core.ts': "import type { Flag } from '../core';\nexport const w = (f: Flag) => f;\n",
      // A Node API where the dashboard bundles the code, directly and through core's clock.
      'internal/evaluation/hashes.ts': "import { createHash } from 'node:crypto';\nexport const h = createHash('sha256');\n",
      'internal/wire/ids.ts': "import { now } from '../core/clock';\nexport const i = now();\n",
      // A cycle of type-only imports.
      'internal/telemetry/a.ts': "import type { B } from './b';\nexport type A = { b?: B };\n",
      'internal/telemetry/b.ts': "import type { A } from './a';\nexport type B = { a?: A };\n",
      // The dashboard reaching server code.
      'web/src/app.ts': "import { buildApp } from '../../internal/server';\nexport const a = buildApp();\n",
      // A command loading the service at once.
      'cmd/eager.ts': "import { startService } from '../internal/service';\nexport const e = startService();\n",
      // A room the row leaves out, even for a type (the auth ↔ cache cycle the composition root broke).
      'internal/cache/other.ts': "import type { Authenticator } from '../auth';\nexport type O = Authenticator;\n",
    });
    expect(status).not.toBe(0);
    const breaches = [...output.matchAll(/^ {2}error (.+?): (\S+) → ?\s*(\S*)$/gm)].map(([, rule, from, to]) => `${rule}: ${from} → ${to}`);
    expect(breaches.sort()).toEqual(
      [
        'room:core: internal/core/uses-config.ts → internal/config/index.ts',
        'room:management (storage: types only): internal/management/opens.ts → internal/storage/index.ts',
        'room:ext (management: through its index): internal/ext/deep.ts → internal/management/validate.ts',
        'room:evaluation (core: not its index): internal/evaluation/whole-core.ts → internal/core/index.ts',
        'browser-safe (no Node API, no package): internal/evaluation/hashes.ts → crypto',
        'browser-safe (no Node API, no package): internal/wire/ids.ts → crypto',
        // Through core's index, which loads its clock (tsc -p web refuses it as well).
        'browser-safe (no Node API, no package): internal/evaluation/whole-core.ts → crypto',
        // A cycle is reported once, from its first file.
        'no-circular: internal/telemetry/a.ts → ',
        'room:web: web/src/app.ts → internal/server/index.ts',
        'room:cmd (lazy): cmd/eager.ts → internal/service/index.ts',
        'room:cache: internal/cache/other.ts → internal/auth/index.ts',
      ].sort(),
    );
    // dependency-cruiser wraps the rule's comment: compare the words.
    expect(output.replace(/\s+/g, ' ')).toContain('error room:ext (management: through its index): internal/ext/deep.ts → internal/management/validate.ts docs/ARCHITECTURE.md, "Rooms and what they may import", row internal/ext: may import `core`, `management` (its index), `storage` (types).');
  }, 60_000);
});

describe("the rooms rules' table", () => {
  /** A qualifier as the table writes it: `(types)`, `(its index)`, `(its modules, not its index)`, `'s \`file\` only`. */
  function qualifierOf(text: string, where: string): How {
    const only = /^'s `([^`]+)` only/.exec(text);
    if (only) return [only[1]];
    if (text === '') return 'any';
    if (text === '(types)') return 'types';
    if (text === '(its modules, not its index)') return 'modules';
    if (/^(\(its index\)|through its index files)/.test(text)) return 'index';
    throw new Error(`${where}: a qualifier the rules do not know`);
  }

  /** docs/ARCHITECTURE.md's rows: each room and its "may import" cell, read as the rules read it. */
  function documentedRows(): Record<string, Record<string, How>> {
    const text = readFileSync(join(ROOT, 'docs/ARCHITECTURE.md'), 'utf8');
    const rows = [...text.matchAll(/^\| `internal\/(\w+)` \|.*\| ([^|]+) \|$/gm)];
    const rooms = rows.map(([, room]) => room);
    return Object.fromEntries(
      rows.map(([, room, cell]) => {
        const may: Record<string, How> = {};
        if (/^nothing/.test(cell)) return [room, may];
        for (const part of cell.trim().split(/, (?![^(]*\))/)) {
          if (part === 'every other room') {
            for (const other of rooms) if (other !== room) may[other] = 'any';
            continue;
          }
          const [, name, rest] = /^`(\w+)`(.*)$/.exec(part) ?? [];
          expect(name, `${room}: "${part}"`).toBeDefined();
          may[name] = qualifierOf(rest.trim(), `${room}: "${part}"`);
        }
        return [room, may];
      }),
    );
  }

  it('has the rules of docs/ARCHITECTURE.md, row by row', () => {
    const sorted = (rows: Record<string, Record<string, How>>) => Object.fromEntries(Object.entries(rows).map(([room, may]) => [room, Object.fromEntries(Object.entries(may).sort())]));
    expect(sorted(config.rooms)).toEqual(sorted(documentedRows()));
  });

  it('orders the rooms without a cycle', () => {
    const placed = new Set<string>();
    const visiting: string[] = [];
    const visit = (room: string): void => {
      if (placed.has(room)) return;
      expect(visiting, `a cycle: ${[...visiting, room].join(' → ')}`).not.toContain(room);
      visiting.push(room);
      for (const other of Object.keys(config.rooms[room] ?? {})) visit(other);
      visiting.pop();
      placed.add(room);
    };
    for (const room of Object.keys(config.rooms)) visit(room);
    expect(placed.size).toBe(Object.keys(config.rooms).length);
  });
});
