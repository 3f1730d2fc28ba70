import { useMemo, useState } from 'preact/hooks';
import { ApiError } from '../../api/errors';
import { Link, useLocation, useSearch } from 'wouter-preact';
import { flags as api } from '../../api/flags';
import { useQuery } from '../../api/hooks';
import type { Flag } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Page } from '../../components/page';
import { LoadError, Loading } from '../../components/states';
import { useToast } from '../../components/toast';
import { formatDate } from '../../lib/format';
import { paths, useRouteParam } from '../../routes/paths';
import { touchesFlag, useLiveChanges } from '../../session/live';
import { useCurrentNamespace } from '../../session/namespaces';
import { useWritable } from '../../session/access';
import { HistorySection } from '../audit/history';
import { EnabledBadge, TypeBadge } from './badges';
import { CopyFlagDialog } from './copy-dialog';
import { FlagDetailsForm } from './details-form';
import { EvaluationsSection } from './analytics';
import { RolloutsSection } from './rollouts';
import { RulesSection } from './rules';
import { VariantsSection } from './variants';

/**
 * Flipt's flag page: the flag's fields, delete, copy to another namespace; then, for a variant
 * flag, its variants, default variant and rules; for a boolean flag, its rollouts (its default
 * value is its `enabled`, said beside the switch in the details form). Every part reloads the one flag query after a change, so the
 * sections never disagree about the variants. Live: a change to the flag made elsewhere (its
 * key in the namespace's event stream) reads it again, and its rules or rollouts; forms with
 * unsaved edits keep them and offer to reload; a flag deleted elsewhere says so. Last, its
 * History: the audit trail of the flag and its parts (screens/audit/history.tsx).
 */
export function FlagDetailScreen() {
  const ns = useCurrentNamespace();
  const key = useRouteParam('flagKey');
  const query = useQuery(() => api.get(ns, key), [ns, key]);
  // Bumped on each change made elsewhere: the sections that load their own lists read them again.
  const [version, setVersion] = useState(0);
  // `?event=<id>`: one change of the History picked out (the console links a flag's last change so).
  const highlight = new URLSearchParams(useSearch()).get('event') ?? undefined;
  useLiveChanges((change) => {
    if (!touchesFlag(key)(change)) return;
    query.refresh();
    setVersion((v) => v + 1);
  });
  const flag = query.data;

  if (!flag) {
    return (
      <Page title={`Flag ${key}`}>
        {query.loading ? <Loading label="Loading flag…" /> : <LoadError error={query.error} retry={query.reload} />}
        <p>
          <Link href={paths.flags(ns)}>Back to flags</Link>
        </p>
      </Page>
    );
  }
  // Keyed by namespace and key: another flag's page starts with fresh form state.
  const gone = query.error instanceof ApiError && query.error.status === 404;
  return <FlagPage key={`${ns}/${flag.key}`} ns={ns} flag={flag} reload={query.reload} version={version} gone={gone} highlight={highlight} />;
}

function FlagPage({ ns, flag, reload, version, gone, highlight }: { ns: string; flag: Flag; reload: () => void; version: number; gone: boolean; highlight?: string }) {
  // No changes offered when the role (or a read-only instance) forbids them: session/access.ts.
  const readOnly = !useWritable(ns).allowed;
  const [, navigate] = useLocation();
  const toast = useToast();
  const [deleting, setDeleting] = useState(false);
  const [copying, setCopying] = useState(false);
  const boolean = flag.type === 'BOOLEAN_FLAG_TYPE';
  // The History names a distribution's variant by its key, not only its id.
  const variantKeys = useMemo(() => new Map(flag.variants.map((v) => [v.id, v.key])), [flag.variants]);

  const actions = readOnly ? undefined : (
    <>
      <button type="button" class="button" onClick={() => setCopying(true)}>
        Copy to namespace…
      </button>
      <button type="button" class="button button-danger-quiet" onClick={() => setDeleting(true)}>
        Delete flag
      </button>
    </>
  );

  return (
    <Page title={flag.name || flag.key} actions={actions}>
      <div class="flag-summary">
        <Link href={paths.flags(ns)}>← Flags</Link>
        <span class="mono">{flag.key}</span>
        <TypeBadge type={flag.type} />
        <EnabledBadge enabled={flag.enabled} />
        <span class="muted">Updated {formatDate(flag.updatedAt)}</span>
        <Link href={paths.console(ns, flag.key)} class="push-end">Evaluate in console</Link>
      </div>
      {gone && (
        <div class="banner banner-changed" role="alert" data-testid="flag-gone">
          <span>
            <strong>This flag was deleted elsewhere.</strong> What is shown here is its last version; saving it fails.
          </span>
          <Link href={paths.flags(ns)}>Back to flags</Link>
        </div>
      )}
      <div class="flag-layout">
        <section class="flag-section" aria-labelledby="details-title">
          <h2 id="details-title">Details</h2>
          <FlagDetailsForm ns={ns} flag={flag} onSaved={reload} />
        </section>
        {boolean ? (
          <RolloutsSection ns={ns} flag={flag} onChanged={reload} version={version} />
        ) : (
          <>
            <VariantsSection ns={ns} flag={flag} onChanged={reload} />
            <RulesSection ns={ns} flag={flag} onChanged={reload} version={version} />
          </>
        )}
        <EvaluationsSection ns={ns} flag={flag} />
        <HistorySection ns={ns} kind="flag" resourceKey={flag.key} highlight={highlight} idLabels={variantKeys} sectionClass="flag-section" />
      </div>

      <CopyFlagDialog open={copying} ns={ns} flag={flag} onClose={() => setCopying(false)} />
      <ConfirmDialog
        open={deleting}
        title="Delete flag?"
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await api.delete(ns, flag.key);
          toast.success(`Flag ${flag.key} deleted`);
          navigate(paths.flags(ns));
        }}
        onClose={() => setDeleting(false)}
      >
        <p>
          Flag <strong class="mono">{flag.key}</strong> and its {boolean ? 'rollouts' : 'variants and rules'} will be deleted from namespace{' '}
          <strong class="mono">{ns}</strong>. Clients asking for it will get “not found”. This cannot be undone.
        </p>
      </ConfirmDialog>
    </Page>
  );
}
