import { distributionRanges } from '../../../../../internal/evaluation';
import { rules as api, segmentKeysOf } from '../../../api/rules';
import type { Flag, Rule, Segment } from '../../../api/types';
import { cutShares } from '../../../lib/distributions';
import { RankedSection, type FlagSectionProps } from '../ranked/section';
import { RuleEditor } from './editor';
import { SegmentList } from './segment-picker';

/**
 * A variant flag's rules, in rank order (Flipt's rules tab): what each matches and serves,
 * create / edit / delete, and reordering by drag-and-drop or the keyboard (one
 * `PUT …/rules/order` with every id; our ranks are 1..n). The flag's default closes the list.
 * The list's workings are RankedSection's, shared with the rollouts.
 */
export function RulesSection(props: FlagSectionProps) {
  const { ns, flag } = props;
  return (
    <RankedSection<Rule>
      {...props}
      noun="rule"
      api={api}
      hint="Evaluated top to bottom: the first rule whose segments match decides what is served. Drag a rule, or use its arrows, to change the order."
      empty="Every evaluation gets the flag's default until a rule matches."
      note={!flag.enabled && <p class="rule-note">This flag is disabled: evaluations return its default without looking at the rules.</p>}
      otherwise={
        flag.defaultVariant ? (
          <span>
            serve the default variant <span class="mono">{flag.defaultVariant.key}</span>
          </span>
        ) : (
          <span class="muted">no variant (the flag has no default variant)</span>
        )
      }
      summary={(rule, segments) => <RuleSummary ns={ns} flag={flag} rule={rule} segments={segments} />}
      editor={({ existing, list, segments, segmentsError, retrySegments, onSaved, onFailed, onCancel }) => (
        <RuleEditor
          ns={ns}
          flag={flag}
          segments={segments}
          segmentsError={segmentsError}
          retrySegments={retrySegments}
          rules={list}
          ruleId={existing?.id}
          onSaved={onSaved}
          onFailed={onFailed}
          onCancel={onCancel}
        />
      )}
      deleteMessage={(rule, position) => (
        <p>
          Rule {position} (segments <span class="mono">{segmentKeysOf(rule).join(', ')}</span>) and its distributions will be deleted; the rules after it move up.
        </p>
      )}
    />
  );
}

/** "If a AND b match, serve x (single variant) / x 50% · y 50%". */
function RuleSummary({ ns, flag, rule, segments }: { ns: string; flag: Flag; rule: Rule; segments?: Segment[] }) {
  const keys = segmentKeysOf(rule);
  const variantKey = (id: string) => flag.variants.find((v) => v.id === id)?.key;
  const total = Math.round(rule.distributions.reduce((sum, d) => sum + d.rollout, 0) * 100) / 100;
  const single = rule.distributions.length === 1 && rule.distributions[0].rollout === 100 ? rule.distributions[0] : null;
  return (
    <div class="rule-body">
      <p class="rule-line">
        <span class="rule-keyword">If</span>
        <SegmentList ns={ns} keys={keys} operator={rule.segmentOperator} segments={segments} />
        <span class="muted">{keys.length > 1 ? (rule.segmentOperator === 'AND_SEGMENT_OPERATOR' ? 'all match' : 'any matches') : 'matches'}</span>
      </p>
      <div class="rule-line">
        <span class="rule-keyword">Serve</span>
        {rule.distributions.length === 0 ? (
          <span class="muted">no variant (the flag's default)</span>
        ) : single ? (
          <span>
            <span class="mono">{variantKey(single.variantId) ?? '(deleted variant)'}</span> <span class="rule-tag">single variant</span>
          </span>
        ) : (
          <ul class="dist-list" aria-label="Distribution">
            {rule.distributions.map((d) => (
              <li key={d.id}>
                <span class="mono dist-key">{variantKey(d.variantId) ?? '(deleted variant)'}</span>
                <progress class="split-bar" max={100} value={d.rollout} aria-hidden="true" />
                <span class="dist-pct">{d.rollout}%</span>
              </li>
            ))}
            {total < 100 && (
              <li class="muted">
                <span class="dist-key">no variant</span>
                <span />
                <span class="dist-pct">{Math.round((100 - total) * 100) / 100}%</span>
              </li>
            )}
          </ul>
        )}
      </div>
      {total > 100 && <OverHundred rule={rule} total={total} variantKey={variantKey} />}
    </div>
  );
}

/**
 * Flipt's API accepts distributions that add up to more than 100% (its UI refuses to save them):
 * evaluation lays them end to end over buckets 0–999, so the ones past 100% are cut short or
 * never served. Said on the card, since nothing else would show it.
 */
function OverHundred({ rule, total, variantKey }: { rule: Rule; total: number; variantKey: (id: string) => string | undefined }) {
  const ranges = distributionRanges(rule.distributions.map((d) => ({ variant: variantKey(d.variantId) ?? '(deleted variant)', rollout: d.rollout })));
  return (
    <p class="rule-warning" role="note" data-testid="rule-over-100">
      <strong>Adds up to {total}%.</strong> Only 100% can be served — entities fill the buckets in this order — so {cutShares(ranges)}. Edit the rule to bring the split to
      100% or less.
    </p>
  );
}
