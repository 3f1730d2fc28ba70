import { segmentKeysOf } from '../../../api/rules';
import { rollouts as api } from '../../../api/rollouts';
import type { Rollout, Segment } from '../../../api/types';
import { RankedSection, type FlagSectionProps } from '../ranked/section';
import { SegmentList } from '../rules/segment-picker';
import { RolloutEditor } from './editor';

/**
 * A boolean flag's rollouts, in rank order (Flipt's rollouts tab): thresholds and segments with
 * the value each serves, create / edit / delete, reordering by drag-and-drop or the keyboard
 * (`PUT …/rollouts/order` with every id), and the flag's own value as the final "otherwise".
 * The list's workings are RankedSection's, shared with the rules.
 */
export function RolloutsSection(props: FlagSectionProps) {
  const { ns, flag } = props;
  return (
    <RankedSection<Rollout>
      {...props}
      noun="rollout"
      api={api}
      hint="Evaluated top to bottom, even while the flag is disabled: the first rollout that matches decides the value. Drag a rollout, or use its arrows, to change the order."
      empty="Every evaluation gets the flag's own value until a rollout matches."
      otherwise={
        <span>
          serve <BoolValue value={flag.enabled} /> <span class="muted">(the flag's default value: it is {flag.enabled ? 'enabled' : 'disabled'})</span>
        </span>
      }
      summary={(rollout, segments) => <RolloutSummary ns={ns} rollout={rollout} segments={segments} />}
      editor={({ existing, position, segments, segmentsError, retrySegments, onSaved, onCancel }) => (
        <RolloutEditor
          ns={ns}
          flag={flag}
          segments={segments}
          segmentsError={segmentsError}
          retrySegments={retrySegments}
          existing={existing}
          position={position}
          onSaved={onSaved}
          onCancel={onCancel}
        />
      )}
      deleteMessage={(_, position) => <p>Rollout {position} will be deleted; the rollouts after it move up.</p>}
    />
  );
}

function BoolValue({ value }: { value: boolean }) {
  return <span class={value ? 'bool-value bool-true' : 'bool-value bool-false'}>{String(value)}</span>;
}

/** "Threshold 30% of entities / Serve true" or "If a OR b matches / Serve false", with the description under it. */
function RolloutSummary({ ns, rollout, segments }: { ns: string; rollout: Rollout; segments?: Segment[] }) {
  const { threshold, segment } = rollout;
  const keys = segment ? segmentKeysOf(segment) : [];
  return (
    <div class="rule-body">
      {threshold ? (
        <p class="rule-line">
          <span class="rule-keyword">Threshold</span>
          <span>
            <strong>{threshold.percentage}%</strong> of entities
          </span>
        </p>
      ) : segment ? (
        <p class="rule-line">
          <span class="rule-keyword">If</span>
          <SegmentList ns={ns} keys={keys} operator={segment.segmentOperator} segments={segments} />
          <span class="muted">{keys.length > 1 ? (segment.segmentOperator === 'AND_SEGMENT_OPERATOR' ? 'all match' : 'any matches') : 'matches'}</span>
        </p>
      ) : (
        <p class="rule-line muted">Unknown rollout kind ({rollout.type})</p>
      )}
      {(threshold || segment) && (
        <p class="rule-line">
          <span class="rule-keyword">Serve</span>
          <BoolValue value={(threshold ?? segment)!.value} />
        </p>
      )}
      {rollout.description && <p class="rule-description muted">{rollout.description}</p>}
    </div>
  );
}
