import type { AuditActor } from '../../../internal/core/audit';
import type { AuditEventJson } from '../../../internal/wire/audit';
import { andList } from './words';

/**
 * An audit event in words: who (`alice`, `anonymous`), what they did to what ("updated flag
 * checkout", "created variant blue of flag checkout"), through which door, and how long ago.
 * Pure: unit-tested beside the diff (lib/audit-diff.ts).
 */

const TOKEN_NAME = 'io.flipt.auth.token.name';

/**
 * Who made a change: the token's name, else the user's email, else the token's id. With
 * authentication off nobody is identified (Flipt's `none`): "anonymous". The CLI working on the
 * database and the service itself have no token either: said as what they are.
 */
export function actorLabel(actor: AuditActor | null | undefined): string {
  if (actor?.name) return actor.name;
  if (actor?.email) return actor.email;
  if (actor?.id) return actor.id;
  switch (actor?.authentication) {
    case 'local':
      return 'the CLI (on the database)';
    case 'system':
      return 'Pennon';
    case 'git':
      return 'Git';
    default:
      return 'anonymous';
  }
}

const SOURCES: Record<string, string> = { api: 'API', grpc: 'gRPC', dashboard: 'dashboard', cli: 'CLI', system: 'system', git: 'Git' };

/** The door a change came through, as people say it. */
export function sourceLabel(source: string): string {
  return SOURCES[source] ?? source;
}

type Event = Pick<AuditEventJson, 'type' | 'action' | 'key' | 'namespace' | 'payload' | 'before' | 'metadata'>;

/** A field of the object after (or, once deleted, before) the change. */
function field(e: Event, name: string): unknown {
  const from = (e.payload ?? e.before) as Record<string, unknown> | null;
  return from && typeof from === 'object' ? from[name] : undefined;
}

const str = (v: unknown) => (typeof v === 'string' && v !== '' ? v : null);

/** What the change was made to, in words: "flag checkout", "rule 2 of flag checkout". */
export function objectLabel(e: Event): string {
  const { key } = e;
  const rank = typeof field(e, 'rank') === 'number' ? ` ${field(e, 'rank') as number}` : '';
  switch (e.type) {
    case 'flag':
      return `flag ${key}`;
    case 'segment':
      return `segment ${key}`;
    case 'namespace':
      return `namespace ${key}`;
    case 'variant': {
      const variant = str(field(e, 'key'));
      return `${variant ? `variant ${variant}` : 'a variant'} of flag ${key}`;
    }
    case 'rule':
      return e.action === 'reordered' ? `the rules of flag ${key}` : `rule${rank} of flag ${key}`;
    case 'rollout':
      return e.action === 'reordered' ? `the rollouts of flag ${key}` : `rollout${rank} of flag ${key}`;
    case 'distribution':
      return `a distribution of flag ${key}`;
    case 'constraint': {
      const property = str(field(e, 'property'));
      return `${property ? `a constraint on ${property}` : 'a constraint'} of segment ${key}`;
    }
    case 'token': {
      const metadata = field(e, 'metadata') as Record<string, string> | undefined;
      return `token ${metadata?.[TOKEN_NAME] ?? key}`;
    }
    default:
      return key === '' ? e.type : `${e.type} ${key}`;
  }
}

/** An import's counts ("3 flags and 2 segments"), the kinds with none left out. */
function importCounts(payload: unknown): string {
  if (!payload || typeof payload !== 'object') return 'flags';
  const parts = Object.entries(payload as Record<string, unknown>)
    .filter(([, n]) => typeof n === 'number' && n > 0)
    .map(([kind, n]) => `${n as number} ${n === 1 ? kind.replace(/s$/, '') : kind}`);
  return parts.length === 0 ? 'nothing' : andList(parts);
}

/** The sentence: who, the verb, what. "alice updated flag checkout"; "anonymous imported 3 flags into namespace team". */
export function describeEvent(e: Event): { who: string; did: string; what: string; sentence: string } {
  const who = actorLabel(e.metadata?.actor);
  let did: string = e.action;
  let what = objectLabel(e);
  if (e.type === 'import') {
    did = 'imported';
    what = `${importCounts(e.payload)} into namespace ${e.namespace}`;
  } else if (e.type === 'migration') {
    did = 'migrated';
    what = 'the database from Flipt';
  }
  return { who, did, what, sentence: `${who} ${did} ${what}` };
}

const UNITS: [limitSeconds: number, unitSeconds: number, name: string][] = [
  [60 * 60, 60, 'minute'],
  [24 * 60 * 60, 60 * 60, 'hour'],
  [30 * 24 * 60 * 60, 24 * 60 * 60, 'day'],
  [365 * 24 * 60 * 60, 30 * 24 * 60 * 60, 'month'],
  [Infinity, 365 * 24 * 60 * 60, 'year'],
];

/**
 * How long ago `iso` was, at `nowMs`: "just now" (under a minute, either way: clocks differ
 * between browser and server), "5 minutes ago", "yesterday", "3 months ago"; "in 2 hours" for a
 * time ahead of the browser's clock by more than that.
 */
export function relativeTime(iso: string, nowMs: number): string {
  const at = Date.parse(iso);
  if (Number.isNaN(at)) return iso;
  const seconds = Math.round((nowMs - at) / 1000);
  const size = Math.abs(seconds);
  if (size < 60) return 'just now';
  const [, unit, name] = UNITS.find(([limit]) => size < limit)!;
  const n = Math.floor(size / unit);
  if (seconds > 0 && name === 'day' && n === 1) return 'yesterday';
  const amount = `${n} ${name}${n === 1 ? '' : 's'}`;
  return seconds > 0 ? `${amount} ago` : `in ${amount}`;
}
