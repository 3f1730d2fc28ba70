import { Link } from 'wouter-preact';
import type { AuditEvent } from '../../api/audit';
import type { BooleanAnswer, EvaluationRequest, VariantAnswer } from '../../api/evaluation';
import { useToast } from '../../components/toast';
import { describeEvent, relativeTime } from '../../lib/audit-words';
import { formatDate } from '../../lib/format';
import { paths } from '../../routes/paths';

/** The server's answer, as `/evaluate/v1` gave it, with the request it answered. */
export interface Run {
  request: EvaluationRequest;
  kind: 'variant' | 'boolean';
  answer: VariantAnswer | BooleanAnswer;
  /** Measured in the browser: the request's round trip. */
  roundTripMs: number;
}

const REASON: Record<string, string> = {
  MATCH_EVALUATION_REASON: 'a rule or rollout matched',
  DEFAULT_EVALUATION_REASON: 'nothing matched: the default',
  FLAG_DISABLED_EVALUATION_REASON: 'the flag is disabled',
  UNKNOWN_EVALUATION_REASON: 'no match and no default',
};

export function ResultCard({ run, lastChange }: { run: Run; lastChange?: AuditEvent | null }) {
  const { answer, request } = run;
  const variant = 'enabled' in answer ? null : answer;
  const segments = answer.segmentKeys ?? [];
  return (
    <section class="console-card console-result" aria-labelledby="console-result-title" data-testid="console-result">
      <h2 id="console-result-title">Result</h2>
      <p class="muted console-for">
        <code>{request.flagKey}</code> for entity <code>{request.entityId === '' ? '""' : request.entityId}</code>
      </p>
      <dl class="console-facts">
        {variant ? (
          <>
            <dt>Variant</dt>
            <dd data-testid="result-value" class="console-answer">
              {variant.variantKey === '' ? <span class="muted">none</span> : <code>{variant.variantKey}</code>}
            </dd>
            <dt>Match</dt>
            <dd data-testid="result-match">{variant.match ? 'yes' : 'no'}</dd>
          </>
        ) : (
          <>
            <dt>Enabled</dt>
            <dd data-testid="result-value" class="console-answer">
              <code>{String((answer as BooleanAnswer).enabled)}</code>
            </dd>
          </>
        )}
        <dt>Reason</dt>
        <dd data-testid="result-reason">
          <code>{answer.reason}</code> <span class="muted">— {REASON[answer.reason] ?? ''}</span>
        </dd>
        <dt>Segments</dt>
        <dd data-testid="result-segments">{segments.length === 0 ? <span class="muted">none</span> : segments.map((k) => <code key={k} class="console-chip">{k}</code>)}</dd>
        <dt>Duration</dt>
        <dd data-testid="result-duration">
          {answer.requestDurationMillis.toFixed(3)} ms on the server <span class="muted">· {Math.round(run.roundTripMs)} ms round trip</span>
        </dd>
        <dt>Request</dt>
        <dd>
          <code class="console-id">{answer.requestId}</code> <span class="muted">at {formatDate(answer.timestamp)}</span>
        </dd>
        {lastChange !== undefined && (
          <>
            <dt>Last change</dt>
            <dd data-testid="result-last-change">
              {lastChange === null ? (
                <span class="muted">none recorded</span>
              ) : (
                <>
                  <Link href={paths.flagEvent(lastChange.namespace || request.namespaceKey, request.flagKey, lastChange.id)}>{describeEvent(lastChange).sentence}</Link>{' '}
                  <span class="muted" title={lastChange.timestamp}>
                    {relativeTime(lastChange.timestamp, Date.now())}
                  </span>
                </>
              )}
            </dd>
          </>
        )}
      </dl>
      {variant && variant.variantAttachment !== '' && (
        <>
          <h3 class="console-subtitle">Attachment</h3>
          <pre class="console-pre" data-testid="result-attachment">
            {pretty(variant.variantAttachment)}
          </pre>
        </>
      )}
      <details class="console-raw">
        <summary>Response JSON</summary>
        <pre class="console-pre">{JSON.stringify(answer, null, 2)}</pre>
      </details>
    </section>
  );
}

function pretty(json: string): string {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return json;
  }
}

/** A command to run elsewhere, shown whole, with a copy button. */
export function CommandBlock({ title, command, testId, note }: { title: string; command: string; testId: string; note?: string }) {
  const toast = useToast();
  const copy = async () => {
    if (await copyText(command)) toast.success(`${title} copied`);
    else toast.error('The browser refused the clipboard: select the command and copy it.');
  };
  return (
    <div class="console-command">
      <div class="console-command-head">
        <h3 class="console-subtitle">{title}</h3>
        <button type="button" class="button button-small" onClick={copy} aria-label={`Copy ${title}`}>
          Copy
        </button>
      </div>
      <pre class="console-pre" data-testid={testId}>
        {command}
      </pre>
      {note && <p class="field-hint">{note}</p>}
    </div>
  );
}

/** The clipboard API where the page may use it; otherwise the older copy command. */
async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement('textarea');
    area.value = text;
    area.setAttribute('readonly', '');
    area.className = 'visually-hidden';
    document.body.appendChild(area);
    area.select();
    try {
      return document.execCommand('copy');
    } catch {
      return false;
    } finally {
      area.remove();
    }
  }
}
