import { useId, useState } from 'preact/hooks';
import { formErrors } from '../../../api/errors';
import { useMutation } from '../../../api/hooks';
import { segmentKeysOf } from '../../../api/rules';
import { rollouts as api, type RolloutInput } from '../../../api/rollouts';
import type { Flag, Rollout, RolloutType, Segment, SegmentOperator } from '../../../api/types';
import { Field, FormError, TextField } from '../../../components/field';
import { FormActions } from '../form-actions';
import { EditorForm } from '../ranked/editor-form';
import { SegmentPicker } from '../rules/segment-picker';

/**
 * Creates a rollout (no `existing`) or edits one: a threshold (a percentage of entities, by
 * their bucket) or segments, and the value served. A rollout's kind cannot change (Flipt
 * refuses it), so the choice is shown but fixed when editing.
 */
export interface RolloutEditorProps {
  ns: string;
  flag: Flag;
  segments: Segment[] | undefined;
  segmentsError: unknown;
  retrySegments: () => void;
  existing?: Rollout;
  /** The position it is shown at (1-based); a new rollout goes last. */
  position: number;
  onSaved: (rollout: Rollout, created: boolean) => void;
  onCancel: () => void;
}

const FIELDS = ['threshold.percentage', 'segmentKey', 'segmentKeys', 'segment.segmentKey', 'segment.segmentKeys', 'segmentOperator', 'description'] as const;

export function RolloutEditor({ ns, flag, segments, segmentsError, retrySegments, existing, position, onSaved, onCancel }: RolloutEditorProps) {
  const titleId = useId();
  const [type, setType] = useState<RolloutType>(existing?.type ?? 'THRESHOLD_ROLLOUT_TYPE');
  const [percentage, setPercentage] = useState(existing?.threshold ? String(existing.threshold.percentage) : '50');
  const [segmentKeys, setSegmentKeys] = useState<string[]>(existing?.segment ? segmentKeysOf(existing.segment) : []);
  const [operator, setOperator] = useState<SegmentOperator>(existing?.segment?.segmentOperator ?? 'OR_SEGMENT_OPERATOR');
  const [value, setValue] = useState<boolean>(existing ? Boolean(existing.threshold?.value ?? existing.segment?.value) : true);
  const [description, setDescription] = useState(existing?.description ?? '');

  const save = useMutation((input: RolloutInput) => (existing ? api.update(ns, flag.key, existing.id, input) : api.create(ns, flag.key, { ...input, rank: position })));
  const errors = formErrors(save.error, FIELDS);
  const typed = percentage.trim() === '' ? NaN : Number(percentage);
  const percentageProblem = type === 'THRESHOLD_ROLLOUT_TYPE' && !Number.isFinite(typed) ? 'Enter a percentage (0 to 100).' : null;
  const noSegments = type === 'SEGMENT_ROLLOUT_TYPE' && segments !== undefined && segments.length === 0;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (percentageProblem || save.busy) return;
    const input: RolloutInput =
      type === 'THRESHOLD_ROLLOUT_TYPE' ? { description, threshold: { percentage: typed, value } } : { description, segment: { segmentKeys, segmentOperator: operator, value } };
    const saved = await save.run(input);
    if (saved) onSaved(saved, !existing);
  };

  return (
    <EditorForm titleId={titleId} title={existing ? `Edit rollout ${position}` : 'New rollout'} busy={save.busy} onSubmit={submit} onCancel={onCancel} focusFirst="input:not(:disabled), select, button">
      <FormError message={errors.form} />
      <fieldset class="rule-fieldset">
        <legend>Kind</legend>
        <div class="rule-choice" role="radiogroup" aria-label="Kind">
          <label>
            <input type="radio" name={`${titleId}-type`} checked={type === 'THRESHOLD_ROLLOUT_TYPE'} disabled={existing !== undefined} onChange={() => setType('THRESHOLD_ROLLOUT_TYPE')} />
            Threshold (a percentage of entities)
          </label>
          <label>
            <input type="radio" name={`${titleId}-type`} checked={type === 'SEGMENT_ROLLOUT_TYPE'} disabled={existing !== undefined} onChange={() => setType('SEGMENT_ROLLOUT_TYPE')} />
            Segment (entities a segment matches)
          </label>
        </div>
        {existing && <p class="field-hint">A rollout's kind cannot change: delete it and create another.</p>}
      </fieldset>
      {type === 'THRESHOLD_ROLLOUT_TYPE' ? (
        <TextField
          label="Percentage"
          name="threshold.percentage"
          value={percentage}
          onValue={setPercentage}
          error={errors.fields['threshold.percentage'] ?? percentageProblem}
          hint="From 0 to 100: this share of entities (by a hash of their ID) gets the value below."
          input={{ type: 'number', min: 0, max: 100, step: 'any', inputMode: 'decimal', class: 'rule-input-short' }}
        />
      ) : (
        <SegmentPicker
          ns={ns}
          segments={segments}
          loadError={segmentsError}
          retry={retrySegments}
          selected={segmentKeys}
          onSelected={setSegmentKeys}
          operator={operator}
          onOperator={setOperator}
          error={errors.fields.segmentKeys ?? errors.fields.segmentKey ?? errors.fields['segment.segmentKeys'] ?? errors.fields['segment.segmentKey']}
          operatorError={errors.fields.segmentOperator}
        />
      )}
      <Field label="Value">
        {(a11y) => (
          <select {...a11y} class="rule-input-short" value={String(value)} onChange={(e) => setValue(e.currentTarget.value === 'true')}>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        )}
      </Field>
      <TextField label="Description" name="description" value={description} onValue={setDescription} error={errors.fields.description} />
      <FormActions busy={save.busy} blocked={percentageProblem !== null || noSegments} submitLabel={existing ? 'Save rollout' : 'Create rollout'} onCancel={onCancel} />
    </EditorForm>
  );
}
