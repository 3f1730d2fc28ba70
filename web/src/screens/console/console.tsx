import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation, useSearch } from 'wouter-preact';
import { audit, type AuditEvent } from '../../api/audit';
import { evaluation, type EvaluationRequest } from '../../api/evaluation';
import { formErrors } from '../../api/errors';
import { flags as flagsApi } from '../../api/flags';
import { useQuery } from '../../api/hooks';
import { Field, FormError } from '../../components/field';
import { Page } from '../../components/page';
import { Empty, LoadError, Loading } from '../../components/states';
import { paths } from '../../routes/paths';
import { touchesAnyFlag, touchesFlag, useLiveChanges } from '../../session/live';
import { useCurrentNamespace } from '../../session/namespaces';
import { useSession } from '../../session/session';
import { TOKEN_VARIABLE, curlCommand, pennonCommand, serverAddress } from './commands';
import { parseContext, quoteValues } from './context';
import { FlagPicker } from './flag-picker';
import { disagreements, explainLocally, type Explanation } from './local';
import { PathView } from './path';
import { CommandBlock, ResultCard, type Run } from './result';

/**
 * The evaluation console: a flag, an entity and a context → the server's answer from
 * `/evaluate/v1/variant` or `/boolean`, and the path to it (local.ts explains it with the same
 * evaluator the server runs). `#/namespaces/<ns>/console?flag=<key>` opens with a flag chosen.
 * Live: the flag list follows changes made elsewhere, and an answer shown is marked out of date
 * when its flag — its rules, rollouts or their segments — changes (evaluating it again is one
 * click: the answer never changes under its reader). The answer links to the flag's last change
 * in the audit trail (its page's History, that event picked out).
 */
export function ConsoleScreen() {
  const ns = useCurrentNamespace();
  return (
    <Page title="Console">
      {/* A namespace of its own: nothing typed for one namespace's flag follows into another. */}
      <ConsoleBody key={ns} ns={ns} />
    </Page>
  );
}

type Explained = { ok: true; value: Explanation; mismatch: string[] } | { ok: false; error: string };

function ConsoleBody({ ns }: { ns: string }) {
  const session = useSession();
  const [, navigate] = useLocation();
  const wanted = new URLSearchParams(useSearch()).get('flag') ?? '';
  const list = useQuery(() => flagsApi.list(ns), [ns]);
  const [flagKey, setFlagKey] = useState(wanted);
  const [entityId, setEntityId] = useState<string>(() => crypto.randomUUID());
  const [contextText, setContextText] = useState('{}');
  const [contextError, setContextError] = useState<{ message: string; fixable: boolean } | null>(null);
  const [flagError, setFlagError] = useState<string | null>(null);
  const [runError, setRunError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const [run, setRun] = useState<Run | null>(null);
  const [explained, setExplained] = useState<Explained | null>(null);
  /** The flag's newest change in the audit trail when the answer came (null: none recorded; undefined: not known). */
  const [lastChange, setLastChange] = useState<AuditEvent | null | undefined>(undefined);
  /** The flag changed (or may have: the live updates were interrupted) since the answer shown. */
  const [stale, setStale] = useState(false);
  const latest = useRef(0);
  const contextRef = useRef<HTMLTextAreaElement>(null);

  useEffect(() => {
    if (wanted !== '') setFlagKey(wanted);
  }, [wanted]);

  const all = list.data ?? [];
  const flag = all.find((f) => f.key === flagKey);
  const unknownFlag = list.data !== undefined && flagKey !== '' && !flag;

  const choose = (key: string) => {
    setFlagKey(key);
    setFlagError(null);
    // The address bar follows the choice, so the page can be shared or reloaded as it is.
    navigate(paths.console(ns, key), { replace: true });
  };

  const evaluate = async () => {
    const parsed = parseContext(contextText);
    if (!parsed.ok) {
      setContextError({ message: parsed.error, fixable: parsed.fixable });
      contextRef.current?.focus();
    } else setContextError(null);
    if (!flag) setFlagError(flagKey === '' ? 'Choose a flag to evaluate.' : `No flag "${flagKey}" in namespace ${ns}.`);
    if (!parsed.ok || !flag) return;
    const request: EvaluationRequest = { namespaceKey: ns, flagKey: flag.key, entityId, context: parsed.context };
    await send(request, flag.type === 'BOOLEAN_FLAG_TYPE' ? 'boolean' : 'variant');
  };

  const send = async (request: EvaluationRequest, kind: Run['kind']) => {
    const id = ++latest.current;
    setStale(false);
    setBusy(true);
    setRunError(null);
    try {
      const started = performance.now();
      const answer = await (kind === 'boolean' ? evaluation.boolean(request) : evaluation.variant(request));
      const roundTripMs = performance.now() - started;
      if (id !== latest.current) return;
      setRun({ request, kind, answer, roundTripMs });
      setExplained(null);
      setLastChange(undefined);
      // What the answer comes from was last changed when, by whom: a link to it. Unknown (a read refused) says nothing.
      audit.lastFlagChange(ns, request.flagKey).then(
        (event) => id === latest.current && setLastChange(event),
        () => undefined,
      );
      // Then the path: the same evaluator, here, on the flag as the API gives it now.
      try {
        const value = await explainLocally(request);
        if (id === latest.current) setExplained({ ok: true, value, mismatch: disagreements(answer, value.result) });
      } catch (err) {
        if (id === latest.current) setExplained({ ok: false, error: err instanceof Error ? err.message : String(err) });
      }
    } catch (err) {
      if (id === latest.current) setRunError(err);
    } finally {
      if (id === latest.current) setBusy(false);
    }
  };

  useLiveChanges((change) => {
    if (touchesAnyFlag(change)) list.refresh();
    if (run && touchesFlag(run.request.flagKey)(change)) setStale(true);
  });

  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      void evaluate();
    }
  };

  if (list.loading && !list.data) return <Loading label="Loading flags…" />;
  if (list.error && !list.data) return <LoadError error={list.error} retry={list.reload} />;
  if (all.length === 0) {
    return (
      <Empty title={`No flags in namespace ${ns} yet.`}>
        <p>Create a flag, then evaluate it here.</p>
      </Empty>
    );
  }

  const parsedNow = parseContext(contextText);
  const authRequired = session.meta?.authentication.required === true;
  const address = serverAddress();
  const current: EvaluationRequest | null = flag && parsedNow.ok ? { namespaceKey: ns, flagKey: flag.key, entityId, context: parsedNow.context } : null;
  const errors = formErrors(runError, []);

  return (
    <div class="console">
      <form
        class="console-form"
        noValidate
        onKeyDown={onKeyDown}
        onSubmit={(e) => {
          e.preventDefault();
          void evaluate();
        }}
      >
        <FormError message={errors.form} />
        <div class="console-row">
          <Field label="Flag" name="flag" required error={flagError ?? (unknownFlag ? `No flag "${flagKey}" in namespace ${ns}.` : null)} hint={flag ? `${flag.type === 'BOOLEAN_FLAG_TYPE' ? 'Boolean' : 'Variant'} flag, ${flag.enabled ? 'enabled' : 'disabled'}${flag.name && flag.name !== flag.key ? ` — ${flag.name}` : ''}` : `${all.length} flag${all.length === 1 ? '' : 's'} in ${ns}`}>
            {(a11y) => <FlagPicker a11y={a11y} flags={all} value={flagKey} onChange={choose} />}
          </Field>
          <Field label="Entity ID" name="entityId" hint="Who is asking: a user, a device, a session.">
            {(a11y) => (
              <div class="console-inline">
                <input {...a11y} type="text" class="mono" autoComplete="off" spellcheck={false} value={entityId} onInput={(e) => setEntityId(e.currentTarget.value)} />
                <button type="button" class="button" onClick={() => setEntityId(crypto.randomUUID())}>
                  Random ID
                </button>
              </div>
            )}
          </Field>
        </div>
        <Field label="Context" name="context" error={contextError?.message} hint={'A JSON object of strings, e.g. {"plan": "pro", "age": "42"}.'}>
          {(a11y) => (
            <textarea
              {...a11y}
              ref={contextRef}
              class="mono console-context"
              rows={6}
              spellcheck={false}
              value={contextText}
              onInput={(e) => {
                setContextText(e.currentTarget.value);
                if (contextError && parseContext(e.currentTarget.value).ok) setContextError(null);
              }}
            />
          )}
        </Field>
        {contextError?.fixable && (
          <div>
            <button
              type="button"
              class="button button-small"
              onClick={() => {
                setContextText(quoteValues(contextText));
                setContextError(null);
              }}
            >
              Write the values as strings
            </button>
          </div>
        )}
        <div class="form-actions">
          <button type="submit" class="button button-primary" disabled={busy} aria-keyshortcuts="Control+Enter Meta+Enter">
            {busy ? 'Evaluating…' : 'Evaluate'}
          </button>
          <span class="muted console-shortcut">
            or <kbd>Ctrl</kbd>+<kbd>Enter</kbd> (<kbd>⌘</kbd>+<kbd>Enter</kbd>)
          </span>
        </div>
      </form>

      {run && (
        <div class="console-output" aria-live="polite">
          {stale && (
            <div class="banner banner-changed" role="status" data-testid="console-stale">
              <span>
                <strong>The flag changed since this answer.</strong> The answer and its path are as they were then.
              </span>
              <button type="button" class="button button-small" onClick={() => void send(run.request, run.kind)} disabled={busy}>
                Evaluate this request again
              </button>
            </div>
          )}
          <ResultCard run={run} lastChange={lastChange} />
          <section class="console-card" aria-labelledby="console-path-title">
            <h2 id="console-path-title">Path to the answer</h2>
            {explained === null ? (
              <Loading label="Reading the flag's rules to explain the answer…" />
            ) : !explained.ok ? (
              <div class="form-error" role="alert">
                Could not explain this answer: {explained.error}
              </div>
            ) : (
              <>
                {explained.mismatch.length > 0 && (
                  <div class="banner console-mismatch" role="alert" data-testid="console-mismatch">
                    <p>
                      <strong>The explanation does not match the server's answer.</strong> The flag, its rules or its segments changed between the evaluation and the
                      reads that explain it:
                    </p>
                    <ul>
                      {explained.mismatch.map((m) => (
                        <li key={m}>{m}</li>
                      ))}
                    </ul>
                    <button type="button" class="button button-small" onClick={() => void evaluate()} disabled={busy}>
                      Evaluate again
                    </button>
                  </div>
                )}
                <PathView explanation={explained.value} />
                <details class="console-raw">
                  <summary>As text (what pennon evaluate prints)</summary>
                  <pre class="console-pre" data-testid="console-explain-text">
                    {explained.value.text.join('\n')}
                  </pre>
                </details>
              </>
            )}
          </section>
        </div>
      )}

      {current && flag && (
        <section class="console-card console-commands" aria-labelledby="console-commands-title">
          <h2 id="console-commands-title">Run it elsewhere</h2>
          <CommandBlock title="curl command" testId="curl-command" command={curlCommand(current, flag.type === 'BOOLEAN_FLAG_TYPE' ? 'boolean' : 'variant', address, authRequired)} />
          <CommandBlock
            title="pennon evaluate command"
            testId="pennon-command"
            command={pennonCommand(current, address, authRequired)}
            note={authRequired ? `This instance requires a client token: set ${TOKEN_VARIABLE} to yours first.` : undefined}
          />
        </section>
      )}
    </div>
  );
}
