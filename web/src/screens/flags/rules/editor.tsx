import { useId, useState } from 'preact/hooks';
import { formErrors } from '../../../api/errors';
import { useMutation } from '../../../api/hooks';
import { segmentKeysOf } from '../../../api/rules';
import type { Flag, Rule, Segment, SegmentOperator } from '../../../api/types';
import { FormError } from '../../../components/field';
import { FormActions } from '../form-actions';
import { EditorForm } from '../ranked/editor-form';
import { DistributionEditor, distributionProblem, draftFrom, wanted, type DistDraft } from './distributions';
import { saveRule, StepFailure } from './save';
import { SegmentPicker } from './segment-picker';

/**
 * Creates a rule (no `ruleId`) or edits one: its segments and operator, and what it serves, in
 * one flow (saveRule). If a step fails, the message goes beside what it concerns, the section
 * reloads what the server now holds, and the editor stays open on the user's draft — now
 * editing the rule if it was created before the failure — so "Save" again finishes the job.
 */
export interface RuleEditorProps {
  ns: string;
  flag: Flag;
  segments: Segment[] | undefined;
  segmentsError: unknown;
  retrySegments: () => void;
  /** The rules as last loaded (the edited rule is looked up here, so a reload is seen). */
  rules: Rule[];
  ruleId?: string;
  onSaved: (rule: Rule, created: boolean) => void;
  /** A step failed: reload what the server holds. */
  onFailed: () => void;
  onCancel: () => void;
}

const RULE_FIELDS = ['segmentKey', 'segmentKeys', 'segmentOperator'] as const;
const DISTRIBUTION_FIELDS = ['rollout', 'variantId'] as const;

export function RuleEditor({ ns, flag, segments, segmentsError, retrySegments, rules, ruleId, onSaved, onFailed, onCancel }: RuleEditorProps) {
  const titleId = useId();
  const [savedId, setSavedId] = useState(ruleId);
  const existing = savedId ? rules.find((r) => r.id === savedId) : undefined;
  const position = existing ? rules.indexOf(existing) + 1 : rules.length + 1;
  const [segmentKeys, setSegmentKeys] = useState<string[]>(existing ? segmentKeysOf(existing) : []);
  const [operator, setOperator] = useState<SegmentOperator>(existing?.segmentOperator ?? 'OR_SEGMENT_OPERATOR');
  const [dist, setDist] = useState<DistDraft>(() => draftFrom(existing, flag.variants));
  const allowNone = flag.variants.length === 0 || (existing !== undefined && existing.distributions.length === 0);
  const problem = distributionProblem(dist, flag.variants);

  const save = useMutation(async (current: Rule | undefined) => {
    try {
      return await saveRule(ns, flag.key, current, { segmentKeys, segmentOperator: operator, distributions: wanted(dist) }, rules.length + 1);
    } catch (err) {
      const failure = err instanceof StepFailure ? err : new StepFailure(err, 'rule', current?.id);
      if (failure.ruleId) setSavedId(failure.ruleId);
      onFailed();
      throw failure;
    }
  });
  const failure = save.error instanceof StepFailure ? save.error : null;
  const ruleErrors = failure?.step === 'rule' ? formErrors(failure.cause, RULE_FIELDS) : { fields: {} as Record<string, string>, form: null };
  const distErrors = failure?.step === 'distribution' ? formErrors(failure.cause, DISTRIBUTION_FIELDS) : null;
  const perRow: Record<string, string> = {};
  let formMessage = ruleErrors.form;
  if (failure?.step === 'distribution' && distErrors) {
    const variant = flag.variants.find((v) => v.id === failure.variantId);
    const named = variant ? `variant ${variant.key}` : 'a variant';
    const inline = Object.keys(distErrors.fields).length > 0 && failure.row !== undefined;
    if (inline) perRow[failure.row!] = distErrors.fields.rollout ?? distErrors.fields.variantId;
    formMessage = `The rule was saved, but not what it serves for ${named}${inline ? '' : `: ${failure.message}`}. The list shows what the server holds now; save again to finish.`;
  }

  const submit = async (event: Event) => {
    event.preventDefault();
    if (problem || save.busy) return;
    const rule = await save.run(existing);
    if (rule) onSaved(rule, !existing && !ruleId);
  };

  const gone = savedId !== undefined && !existing;
  const noSegments = segments !== undefined && segments.length === 0;

  return (
    <EditorForm titleId={titleId} title={existing ? `Edit rule ${position}` : 'New rule'} busy={save.busy} onSubmit={submit} onCancel={onCancel} focusFirst="input, select, button">
      <FormError message={gone && !failure ? 'This rule no longer exists (it was deleted elsewhere).' : formMessage} />
      <SegmentPicker
        ns={ns}
        segments={segments}
        loadError={segmentsError}
        retry={retrySegments}
        selected={segmentKeys}
        onSelected={setSegmentKeys}
        operator={operator}
        onOperator={setOperator}
        error={ruleErrors.fields.segmentKeys ?? ruleErrors.fields.segmentKey}
        operatorError={ruleErrors.fields.segmentOperator}
      />
      <DistributionEditor variants={flag.variants} draft={dist} onDraft={setDist} allowNone={allowNone} errors={perRow} />
      <FormActions busy={save.busy} blocked={problem !== null || noSegments || gone} submitLabel={existing ? 'Save rule' : 'Create rule'} onCancel={onCancel} cancelLabel={failure ? 'Close' : 'Cancel'} />
    </EditorForm>
  );
}
