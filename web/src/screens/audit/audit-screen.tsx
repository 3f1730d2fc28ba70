import { useEffect, useMemo, useState } from 'preact/hooks';
import { useLocation, useSearch } from 'wouter-preact';
import { AUDIT_ACTIONS, AUDIT_TYPES } from '../../../../internal/core/audit';
import { FLAG_AUDIT_TYPES, SEGMENT_AUDIT_TYPES, type AuditFilter } from '../../api/audit';
import { AuditList } from '../../components/audit-events';
import { Field } from '../../components/field';
import { Page } from '../../components/page';
import { paths } from '../../routes/paths';
import { useLiveChanges } from '../../session/live';
import { useCurrentNamespace } from '../../session/namespaces';
import { useAuditEvents } from './use-audit-events';

/** Events per page of the Audit screen. */
export const AUDIT_PAGE = 25;

/** The type choices: the two groups a resource's History shows, then each type alone. */
const TYPE_CHOICES: { value: string; label: string }[] = [
  { value: '', label: 'Any type' },
  { value: FLAG_AUDIT_TYPES.join(','), label: 'Flags and their parts' },
  { value: SEGMENT_AUDIT_TYPES.join(','), label: 'Segments and their constraints' },
  ...AUDIT_TYPES.map((t) => ({ value: t, label: t })),
];

/** The filter the address says (`…/audit?type=flag&action=updated&actor=alice&key=checkout`): one source of truth, so a filtered view can be linked. */
function filterOf(search: string): Required<Record<'type' | 'action' | 'actor' | 'key', string>> {
  const q = new URLSearchParams(search);
  return { type: q.get('type') ?? '', action: q.get('action') ?? '', actor: q.get('actor') ?? '', key: q.get('key') ?? '' };
}

/**
 * The namespace's audit trail: every change recorded in it, newest first, filtered by type,
 * action, actor (a token's name or id) and key, a page at a time. Live: a change to the
 * namespace puts its events on top.
 */
export function AuditScreen() {
  const ns = useCurrentNamespace();
  const [, navigate] = useLocation();
  const applied = filterOf(useSearch());
  const filter = useMemo<AuditFilter>(
    () => ({ types: applied.type === '' ? undefined : applied.type.split(','), action: applied.action || undefined, actor: applied.actor || undefined, key: applied.key || undefined }),
    [applied.type, applied.action, applied.actor, applied.key],
  );
  const trail = useAuditEvents(ns, filter, AUDIT_PAGE);
  useLiveChanges(() => trail.refresh());

  // The text fields are typed into, then applied; the choices apply as they are made.
  const [actor, setActor] = useState(applied.actor);
  const [key, setKey] = useState(applied.key);
  useEffect(() => {
    setActor(applied.actor);
    setKey(applied.key);
  }, [applied.actor, applied.key]);
  const apply = (change: Partial<typeof applied>) => navigate(paths.audit(ns, { ...applied, actor, key, ...change }), { replace: true });
  const filtered = Object.values(applied).some((v) => v !== '');
  // A type typed into the address that the list has no choice for is still shown as chosen.
  const typeChoices = TYPE_CHOICES.some((c) => c.value === applied.type) ? TYPE_CHOICES : [...TYPE_CHOICES, { value: applied.type, label: applied.type }];

  return (
    <Page title="Audit">
      <p class="muted audit-intro">
        Every change recorded in namespace <strong class="mono">{ns}</strong>: who made it, through which door (API, dashboard, CLI), and what it changed.
      </p>
      <form
        class="audit-filters"
        aria-label="Filter the audit trail"
        onSubmit={(e) => {
          e.preventDefault();
          apply({});
        }}
      >
        <Field label="Type" name="type">
          {(a11y) => (
            <select {...a11y} value={applied.type} onChange={(e) => apply({ type: e.currentTarget.value })}>
              {typeChoices.map((c) => (
                <option key={c.value} value={c.value}>
                  {c.label}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Action" name="action">
          {(a11y) => (
            <select {...a11y} value={applied.action} onChange={(e) => apply({ action: e.currentTarget.value })}>
              <option value="">Any action</option>
              {AUDIT_ACTIONS.map((a) => (
                <option key={a} value={a}>
                  {a}
                </option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Actor" name="actor">
          {(a11y) => <input {...a11y} type="search" placeholder="token name or id" value={actor} onInput={(e) => setActor(e.currentTarget.value)} />}
        </Field>
        <Field label="Key" name="key">
          {(a11y) => <input {...a11y} type="search" placeholder="flag or segment key" class="mono" value={key} onInput={(e) => setKey(e.currentTarget.value)} />}
        </Field>
        <div class="audit-filter-actions">
          <button type="submit" class="button button-primary">
            Filter
          </button>
          {filtered && (
            <button type="button" class="button button-quiet" onClick={() => navigate(paths.audit(ns), { replace: true })}>
              Clear
            </button>
          )}
        </div>
      </form>
      <AuditList
        ns={ns}
        {...trail}
        retry={trail.reload}
        linkObjects
        emptyTitle={filtered ? 'No change matches these filters.' : `No changes recorded in namespace ${ns} yet.`}
      />
    </Page>
  );
}
