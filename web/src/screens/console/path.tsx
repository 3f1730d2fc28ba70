import { diagnose, why, type CompiledFlag, type CompiledRollout, type CompiledRule, type ConstraintTrace, type SegmentTrace, type StepTrace } from '../../../../internal/evaluation';
import { Headers, Table } from '../../components/table';
import type { Explanation } from './local';
import { BucketBar, ThresholdBar } from './bucket';

/**
 * The path to an answer, from the local evaluator's trace: every rule (variant flags) or
 * rollout (boolean flags) in rank order — matched, not matched, or not reached — with each
 * segment and constraint it tested (property, operator, expected value, the value it was
 * given or "missing"), then the bucket that chose the variant or the threshold that decided.
 */
export function PathView({ explanation }: { explanation: Explanation }) {
  const { flag, trace } = explanation;
  const isBoolean = flag.type === 'BOOLEAN_FLAG_TYPE';
  const steps = new Map(trace.steps.map((s) => [s.id, s]));
  const items = isBoolean ? flag.rollouts : flag.rules;
  const matchedAt = trace.steps.findIndex((s) => s.matched);
  const disabledVariant = !isBoolean && !flag.enabled;
  return (
    <div class="console-path" data-testid="console-path">
      <p class="console-outcome">
        <strong>Why:</strong> <span data-testid="console-why">{sentence(why(flag, trace))}</span>
      </p>
      {disabledVariant && <p class="muted">A disabled variant flag tries no rules: it answers its default variant (if any) with FLAG_DISABLED.</p>}
      {isBoolean && !flag.enabled && <p class="muted">The flag is disabled, but a boolean flag's rollouts still apply; its enabled value is only the answer when none matches.</p>}
      {items.length === 0 ? (
        <p class="muted">{isBoolean ? 'This flag has no rollouts: it answers its enabled value.' : 'This flag has no rules: it answers its default variant, if it has one.'}</p>
      ) : (
        <ol class="console-steps">
          {items.map((item, i) => {
            const step = steps.get(item.id);
            const state = step ? (step.matched ? 'matched' : 'failed') : 'skipped';
            const reached = matchedAt === -1 || i <= matchedAt;
            return (
              <li key={item.id} class={`console-step console-step-${state}`} data-testid={`${isBoolean ? 'rollout' : 'rule'}-${item.rank}`} data-state={state}>
                <StepHead item={item} isBoolean={isBoolean} state={state} />
                {step && step.kind !== 'threshold' && <Segments segments={step.segments} />}
                {isBoolean ? (
                  <RolloutOutcome rollout={item as CompiledRollout} step={step} />
                ) : (
                  <RuleOutcome rule={item as CompiledRule} flag={flag} matched={step?.matched === true} explanation={explanation} />
                )}
                {!step && (
                  <p class="muted console-skip-note">
                    {disabledVariant ? 'Not tried: the flag is disabled.' : reached ? 'Not tried.' : `Not reached: ${isBoolean ? 'rollout' : 'rule'} #${items[matchedAt]?.rank} answered first.`}
                  </p>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </div>
  );
}

const sentence = (s: string) => (s === '' ? '—' : `${s[0].toUpperCase()}${s.slice(1)}.`);

const BADGE = { matched: 'Matched', failed: 'No match', skipped: 'Not reached' } as const;

function StepHead({ item, isBoolean, state }: { item: CompiledRule | CompiledRollout; isBoolean: boolean; state: keyof typeof BADGE }) {
  let what: string;
  let keys: readonly string[] = [];
  let operator = 'OR_SEGMENT_OPERATOR';
  if (isBoolean) {
    const r = item as CompiledRollout;
    if (r.threshold) what = `threshold ${r.threshold.percentage}% → ${r.threshold.value}`;
    else if (r.segment) {
      keys = r.segment.segmentKeys;
      operator = r.segment.segmentOperator;
      what = `segment → ${r.segment.value}`;
    } else what = 'unknown rollout type';
  } else {
    const r = item as CompiledRule;
    keys = r.segmentKeys;
    operator = r.segmentOperator;
    what = 'segment';
  }
  return (
    <div class="console-step-head">
      <span class={`console-badge console-badge-${state}`}>{BADGE[state]}</span>
      <strong>
        {isBoolean ? 'Rollout' : 'Rule'} #{item.rank}
      </strong>
      <span>
        {keys.length === 0 ? (
          what
        ) : (
          <>
            {keys.length === 1 ? what : `${operator === 'AND_SEGMENT_OPERATOR' ? 'all' : 'any'} of segments (${operator === 'AND_SEGMENT_OPERATOR' ? 'AND' : 'OR'})`}{' '}
            {keys.map((k, i) => (
              <span key={k}>
                {i > 0 && ', '}
                <code>{k}</code>
              </span>
            ))}
            {isBoolean && keys.length > 1 && ` → ${(item as CompiledRollout).segment?.value}`}
          </>
        )}
      </span>
    </div>
  );
}

function Segments({ segments }: { segments: SegmentTrace[] }) {
  return (
    <div class="console-segments">
      {segments.map((s) => (
        <div key={s.key} class="console-segment" data-testid={`segment-${s.key}`} data-matched={s.matched}>
          <p class="console-segment-head">
            <Mark ok={s.matched} /> Segment <code>{s.key}</code>{' '}
            <span class="muted">
              {s.constraints.length === 0 ? '— no constraints: matches everyone' : s.matchType === 'ALL_MATCH_TYPE' ? '— all constraints must match' : '— any constraint may match'}
            </span>
          </p>
          {s.constraints.length > 0 && (
            <Table class="console-constraints" head={<Headers labels={['Property', 'Operator', 'Expected', 'Actual', 'Result']} />}>
              {s.constraints.map((c) => (
                <ConstraintRow key={c.id} c={c} />
              ))}
            </Table>
          )}
        </div>
      ))}
    </div>
  );
}

const NO_VALUE = new Set(['empty', 'notempty', 'present', 'notpresent', 'true', 'false']);
const TYPE = { STRING: 'string', NUMBER: 'number', BOOLEAN: 'boolean', DATETIME: 'datetime', ENTITY: 'entity ID', UNKNOWN: 'unknown' } as Record<string, string>;

function ConstraintRow({ c }: { c: ConstraintTrace }) {
  const onEntity = c.type === 'ENTITY_ID_COMPARISON_TYPE';
  const whyNot = c.matched ? null : diagnose(c.type, c.operator, c.value, c.input);
  return (
    <tr data-property={onEntity ? 'entityId' : c.property} data-matched={c.matched}>
      <td>
        <code>{onEntity ? 'entity ID' : c.property}</code> <span class="muted">({TYPE[c.type.split('_')[0]] ?? c.type})</span>
      </td>
      <td>
        <code>{c.operator}</code>
      </td>
      <td>{NO_VALUE.has(c.operator) ? <span class="muted">—</span> : <code>{c.value}</code>}</td>
      <td data-testid="actual">{c.input === '' && !onEntity ? <em class="muted">missing</em> : <code>{c.input}</code>}</td>
      <td>
        <Mark ok={c.matched} /> {c.matched ? 'passed' : 'failed'}
        {whyNot && <span class="console-why-not muted"> — {whyNot}</span>}
      </td>
    </tr>
  );
}

export function Mark({ ok }: { ok: boolean }) {
  return (
    <span class={ok ? 'console-mark console-mark-ok' : 'console-mark console-mark-no'} aria-hidden="true">
      {ok ? '✓' : '✗'}
    </span>
  );
}

/** A rule's distributions; for the rule that matched, the entity's bucket among their ranges. */
function RuleOutcome({ rule, flag, matched, explanation }: { rule: CompiledRule; flag: CompiledFlag; matched: boolean; explanation: Explanation }) {
  if (rule.valid.length === 0) {
    return <p class="console-dist muted">No distributions: a match answers {flag.defaultVariant ? <code>{flag.defaultVariant.key}</code> : 'no variant'} (the default).</p>;
  }
  const { bucket } = explanation.trace;
  if (matched && bucket) return <BucketBar bucket={bucket} />;
  return (
    <p class="console-dist muted">
      Distributes{' '}
      {rule.valid.map((d, i) => (
        <span key={i}>
          {i > 0 && ', '}
          <code>{d.variantKey}</code> {d.rollout}%
        </span>
      ))}
      .
    </p>
  );
}

function RolloutOutcome({ rollout, step }: { rollout: CompiledRollout; step: StepTrace | undefined }) {
  if (!rollout.threshold || !step || step.kind !== 'threshold') return null;
  return <ThresholdBar value={step.value} percentage={step.percentage} answer={rollout.threshold.value} matched={step.matched} />;
}
