import { Command, InvalidArgumentError, Option } from 'commander';
import type { AuditActor, AuditQuery } from '../internal/core';
import type { AuditEventJson } from '../internal/wire';
import { parseDuration } from '../internal/config/duration';
import { parseGoDateTime } from '../internal/core/goparse';
import { addressOption, configFrom, fail, type GlobalOptions } from './common';

/**
 * `pennon audit list`: the audit trail, newest first, from the configured database (as it is:
 * nothing is created for a read) or a running server (--address: its audit route, a page at a
 * time). Both print wire's AuditEventJson: `--json` one event per line (JSON lines, so a long
 * trail streams and `jq` reads it line by line), else a table. Data on stdout, notes on stderr.
 */

interface ListOptions {
  namespace?: string;
  since?: When;
  until?: When;
  key?: string;
  type: string[];
  action: string[];
  actor?: string;
  limit: number;
  address?: string;
  token?: string;
  json?: boolean;
}

/** A time as given (sent to a server as is: the route reads the same two forms) and, for the database, as epoch µs. */
interface When {
  text: string;
  /** A duration: this many ms before now. */
  agoMs?: number;
  micros?: number;
}

/** The route's reading (internal/server/routes/audit.ts): a Go duration meaning that long ago, or an RFC 3339 instant. */
function when(value: string): When {
  const ago = /^[0-9.]+[a-zµ]+$/i.test(value) ? parseDuration(value) : null;
  if (ago !== null) return { text: value, agoMs: ago };
  const t = parseGoDateTime(value);
  if (t && !t.dateOnly) return { text: value, micros: t.seconds * 1_000_000 + Math.floor(t.nanos / 1000) };
  throw new InvalidArgumentError(`"${value}" is neither a duration meaning that long ago (30m, 24h, 168h) nor an RFC 3339 timestamp (2030-01-02T15:04:05Z)`);
}

const micros = (w: When | undefined, nowMs: number) => (w === undefined ? undefined : (w.micros ?? Math.round((nowMs - w.agoMs!) * 1000)));

function list(value: string, previous: string[]): string[] {
  return [...previous, ...value.split(',').map((v) => v.trim()).filter((v) => v !== '')];
}

function positive(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError(`"${value}" is not a whole number of events (1 or more)`);
  return n;
}

/** Events per request: the route's most. */
const PAGE = 1000;

type Emit = (event: AuditEventJson) => void;

/** The database's trail, through the store; `more` when events past the limit remain. */
async function fromDatabase(options: ListOptions, globals: GlobalOptions, emit: Emit): Promise<{ more: boolean; where: string }> {
  const { config } = await configFrom(globals);
  const { compose } = await import('../internal/service/compose');
  const { auditEventToJson } = await import('../internal/wire');
  const { connection, store, close } = await compose(config, { only: 'database', database: 'existing' });
  try {
    const now = Date.now();
    const query: AuditQuery = {
      namespace: options.namespace ?? null,
      ...(options.type.length > 0 && { types: options.type as AuditQuery['types'] }),
      ...(options.action.length > 0 && { actions: options.action as AuditQuery['actions'] }),
      ...(options.key !== undefined && { key: options.key }),
      ...(options.actor !== undefined && { actor: options.actor }),
      since: micros(options.since, now),
      until: micros(options.until, now),
      limit: 0,
    };
    let remaining = options.limit;
    let before: string | undefined;
    while (remaining > 0) {
      const want = Math.min(remaining, PAGE);
      // One more than wanted: whether there is more to say so.
      const page = await store.listAuditEvents({ ...query, before, limit: want + 1 });
      const taken = page.slice(0, want);
      for (const e of taken) emit(auditEventToJson(e));
      remaining -= taken.length;
      if (page.length <= want) return { more: false, where: connection.describe };
      before = taken[taken.length - 1].id;
    }
    return { more: true, where: connection.describe };
  } finally {
    await close();
  }
}

/** A server's trail, through its audit route, a page at a time. */
async function fromServer(options: ListOptions, emit: Emit): Promise<{ more: boolean; where: string }> {
  const { HttpApi, fetchAuditEvents } = await import('../internal/client');
  const api = new HttpApi({ address: options.address!, token: options.token });
  let remaining = options.limit;
  let pageToken = '';
  while (remaining > 0) {
    const page = await fetchAuditEvents(api, {
      namespace: options.namespace ?? null,
      types: options.type,
      actions: options.action,
      key: options.key,
      actor: options.actor,
      since: options.since?.text,
      until: options.until?.text,
      limit: Math.min(remaining, PAGE),
      pageToken,
    });
    for (const e of page.events) emit(e);
    remaining -= page.events.length;
    pageToken = page.nextPageToken;
    if (pageToken === '' || page.events.length === 0) return { more: false, where: api.address };
  }
  return { more: pageToken !== '', where: api.address };
}

/** Who, in a table cell: the token's name, else an email or id; with authentication off, "anonymous". */
function actorOf(actor: AuditActor): string {
  return actor.name ?? actor.email ?? actor.id ?? (actor.authentication === 'none' ? 'anonymous' : actor.authentication);
}

function printTable(events: AuditEventJson[], withNamespace: boolean): void {
  const header = ['TIME', 'ACTOR', 'SOURCE', 'ACTION', 'TYPE', ...(withNamespace ? ['NAMESPACE'] : []), 'KEY'];
  const rows = events.map((e) => [
    // To the second, in UTC: the table is for reading; --json has the microseconds.
    e.timestamp.replace(/\.\d+Z$/, 'Z'),
    actorOf(e.metadata.actor),
    e.source,
    e.action,
    e.type,
    ...(withNamespace ? [e.namespace === '' ? '-' : e.namespace] : []),
    e.key === '' ? '-' : e.key,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  for (const row of [header, ...rows]) process.stdout.write(`${row.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()}\n`);
}

/** Types and actions are checked against the trail's own lists before anything is read: a typo is a usage error (exit 2). */
async function checkNames(options: ListOptions, command: Command): Promise<void> {
  const { AUDIT_ACTIONS, AUDIT_TYPES } = await import('../internal/core/audit');
  for (const [option, values, allowed] of [
    ['--type', options.type, AUDIT_TYPES],
    ['--action', options.action, AUDIT_ACTIONS],
  ] as const) {
    const wrong = values.find((v) => !(allowed as readonly string[]).includes(v));
    if (wrong !== undefined) command.error(`error: option '${option}': "${wrong}" is not one of ${allowed.join(', ')}`, { exitCode: 2, code: 'pennon.invalidArgument' });
  }
}

export function auditCommand(program: Command): void {
  const audit = program.command('audit').description('read the audit trail: who changed what, when');
  audit
    .command('list')
    .description('list audit events, newest first')
    .option('-n, --namespace <key>', 'one namespace (default: every namespace)')
    .option('--since <when>', 'from this time on: a duration meaning that long ago (24h) or an RFC 3339 timestamp', when)
    .option('--until <when>', 'before this time: a duration meaning that long ago or an RFC 3339 timestamp', when)
    .option('-k, --key <key>', "the flag's or segment's key the events are filed under (or a token's id)")
    .addOption(
      new Option('--type <types>', 'event types, comma-separated or repeated (flag, variant, rule, distribution, rollout, segment, constraint, token, …)')
        .argParser(list)
        .default([], 'every type'),
    )
    .addOption(new Option('--action <actions>', 'actions, comma-separated or repeated (created, updated, deleted, reordered, expired)').argParser(list).default([], 'every action'))
    .option('--actor <name-or-id>', "a token's name or id")
    .option('--limit <n>', 'at most this many events', positive, 100)
    .addOption(addressOption('read a running server (e.g. http://localhost:8080) instead of the database'))
    .option('-t, --token <token>', 'client token for --address')
    .option('--json', 'print each event as one line of JSON (JSON lines)')
    .action(async (options: ListOptions, command: Command) => {
      const globals = command.optsWithGlobals<GlobalOptions>();
      await checkNames(options, command);
      try {
        const kept: AuditEventJson[] = [];
        // JSON lines are written as they come; the table waits for its column widths.
        const emit: Emit = options.json ? (e) => process.stdout.write(`${JSON.stringify(e)}\n`) : (e) => kept.push(e);
        const { more, where } = options.address ? await fromServer(options, emit) : await fromDatabase(options, globals, emit);
        if (!options.json) printTable(kept, options.namespace === undefined);
        if (!options.json && kept.length === 0) process.stderr.write(`no audit events${options.namespace === undefined ? '' : ` in namespace ${options.namespace}`} match in ${where}\n`);
        if (more) process.stderr.write(`the newest ${options.limit} shown; there are more (raise --limit, or narrow with --since, --type, --key)\n`);
      } catch (err) {
        fail(err, globals, (e) =>
          // A namespace-scoped token may read its own namespace's trail only.
          options.address && options.namespace === undefined && (e as { status?: number }).status === 401 ? 'a token limited to one namespace reads that namespace only: pass --namespace' : null,
        );
      }
    });
}
