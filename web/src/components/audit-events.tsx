import { useEffect, useRef, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import type { AuditEvent } from '../api/audit';
import { eventChanges, formatValue, type FieldChange } from '../lib/audit-diff';
import { describeEvent, relativeTime, sourceLabel } from '../lib/audit-words';
import { formatDate } from '../lib/format';
import { paths } from '../routes/paths';
import { Empty, LoadError, Loading } from './states';

/**
 * Audit events as a list, newest first, the same everywhere (a flag's or a segment's History, the
 * Audit screen): who did what, when (how long ago, and the date), through which door, and what
 * changed — a table of the fields that differ (lib/audit-diff.ts), or the fields of what was
 * created or deleted. "Load more" follows the server's page token.
 */

const FLAG_PARTS = new Set(['flag', 'variant', 'rule', 'distribution', 'rollout']);
const SEGMENT_PARTS = new Set(['segment', 'constraint']);

/** The clock the relative times are read against, moved on every `everyMs` so "just now" ages. */
function useNow(everyMs = 30_000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), everyMs);
    return () => clearInterval(timer);
  }, [everyMs]);
  return now;
}

export interface AuditListProps {
  ns: string;
  events: AuditEvent[];
  loading: boolean;
  error: unknown;
  retry: () => void;
  hasMore: boolean;
  loadingMore: boolean;
  moreError: unknown;
  loadMore: () => void;
  /** Shown when there is nothing (yet). */
  emptyTitle: string;
  /** Link each event's object to its page (the Audit screen; a History is on that page already). */
  linkObjects?: boolean;
  /** The event to pick out and scroll to (a link to one change). */
  highlight?: string;
  /** Ids the reader knows by a name (a flag's variants: a distribution's `variantId`). */
  idLabels?: ReadonlyMap<string, string>;
}

export function AuditList(props: AuditListProps) {
  const { events, loading, error } = props;
  const now = useNow();
  if (loading && events.length === 0) return <Loading label="Loading the audit trail…" />;
  if (error && events.length === 0) return <LoadError error={error} retry={props.retry} />;
  if (events.length === 0) return <Empty title={props.emptyTitle} />;
  return (
    <>
      <ol class="audit-list" aria-label="Changes, newest first">
        {events.map((e) => (
          <AuditEntry key={e.id} ns={props.ns} event={e} now={now} link={props.linkObjects === true} highlighted={e.id === props.highlight} idLabels={props.idLabels} />
        ))}
      </ol>
      {props.moreError ? <LoadError error={props.moreError} retry={props.loadMore} /> : null}
      {props.hasMore && (
        <div class="audit-more">
          <button type="button" class="button" onClick={props.loadMore} disabled={props.loadingMore}>
            {props.loadingMore ? 'Loading…' : 'Load more'}
          </button>
        </div>
      )}
    </>
  );
}

/** Where an event's object lives in the dashboard, if it has a page. */
function objectHref(ns: string, e: AuditEvent): string | null {
  if (e.key === '') return null;
  if (FLAG_PARTS.has(e.type)) return paths.flag(e.namespace || ns, e.key);
  if (SEGMENT_PARTS.has(e.type)) return paths.segment(e.namespace || ns, e.key);
  return null;
}

function AuditEntry({ ns, event: e, now, link, highlighted, idLabels }: { ns: string; event: AuditEvent; now: number; link: boolean; highlighted: boolean; idLabels?: ReadonlyMap<string, string> }) {
  const ref = useRef<HTMLLIElement>(null);
  useEffect(() => {
    if (highlighted) ref.current?.scrollIntoView({ block: 'center' });
  }, [highlighted]);
  const { who, did, what } = describeEvent(e);
  const actor = e.metadata.actor;
  const href = link ? objectHref(ns, e) : null;
  const changes = eventChanges(e);
  return (
    <li ref={ref} class={highlighted ? 'audit-entry audit-entry-highlight' : 'audit-entry'} data-event-id={e.id} data-testid="audit-entry" aria-current={highlighted ? 'true' : undefined}>
      <div class="audit-head">
        <p class="audit-what" data-testid="audit-what">
          {/* The token's id stays at hand when it has a name (two tokens may share one). */}
          <strong title={actor.id && actor.id !== who ? `token ${actor.id}` : undefined}>{who}</strong> {did} {href ? <Link href={href}>{what}</Link> : <span>{what}</span>}
        </p>
        <span class="audit-source" data-testid="audit-source" title="Where the change came from">
          {sourceLabel(e.source)}
        </span>
        <span class="audit-when">
          <time dateTime={e.timestamp} title={e.timestamp}>
            {relativeTime(e.timestamp, now)}
          </time>{' '}
          <span class="muted">· {formatDate(e.timestamp)}</span>
        </span>
      </div>
      {changes.length > 0 && <ChangesTable action={e.action} changes={changes} idLabels={idLabels} />}
    </li>
  );
}

/** A value, with the name the reader knows it by when it is an id they know (a variant's). */
function Value({ value, idLabels }: { value: unknown; idLabels?: ReadonlyMap<string, string> }) {
  const label = typeof value === 'string' ? idLabels?.get(value) : undefined;
  return (
    <code class="audit-value">
      {formatValue(value)}
      {label !== undefined && <span class="muted"> ({label})</span>}
    </code>
  );
}

function ChangesTable({ action, changes, idLabels }: { action: string; changes: FieldChange[]; idLabels?: ReadonlyMap<string, string> }) {
  // A create or a delete is one object's fields: one column of values, not an empty side.
  const whole = changes.every((c) => c.kind === 'added') || changes.every((c) => c.kind === 'removed');
  const single = whole && (action === 'created' || action === 'deleted');
  return (
    <table class="audit-diff" data-testid="audit-diff">
      <thead>
        <tr>
          <th scope="col">Field</th>
          {single ? (
            <th scope="col">{action === 'created' ? 'Value' : 'Value before'}</th>
          ) : (
            <>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </>
          )}
        </tr>
      </thead>
      <tbody>
        {changes.map((c) => (
          <ChangeRow key={c.path} change={c} single={single} idLabels={idLabels} />
        ))}
      </tbody>
    </table>
  );
}

function ChangeRow({ change: c, single, idLabels: known }: { change: FieldChange; single: boolean; idLabels?: ReadonlyMap<string, string> }) {
  // An object's own id is not named after itself ("v1 (blue)" beside key "blue"): only ids that point elsewhere are.
  const idLabels = c.path === 'id' ? undefined : known;
  return (
    <tr data-field={c.path} class={`audit-change-${c.kind}`}>
      <th scope="row" class="mono">
        {c.path}
      </th>
      {single ? (
        <td>
          <Value value={c.kind === 'added' ? c.after : c.before} idLabels={idLabels} />
        </td>
      ) : (
        <>
          <td class="audit-before">{c.kind === 'added' ? <span class="muted">—</span> : <Value value={c.before} idLabels={idLabels} />}</td>
          <td class="audit-after">{c.kind === 'removed' ? <span class="muted">removed</span> : <Value value={c.after} idLabels={idLabels} />}</td>
        </>
      )}
    </tr>
  );
}
