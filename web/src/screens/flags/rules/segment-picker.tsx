import { useId, useState } from 'preact/hooks';
import { Link } from 'wouter-preact';
import type { Segment, SegmentOperator } from '../../../api/types';
import { LoadError, Loading } from '../../../components/states';
import { paths } from '../../../routes/paths';

/**
 * Picks one or more segments of the namespace (checkboxes, in the order they were picked) and,
 * when more than one is picked, whether all must match (AND) or any (OR). Used by rules and by
 * segment rollouts. With no segments in the namespace it says so and links to create one.
 */
export interface SegmentPickerProps {
  ns: string;
  segments: Segment[] | undefined;
  loadError?: unknown;
  retry?: () => void;
  selected: string[];
  onSelected: (keys: string[]) => void;
  operator: SegmentOperator;
  onOperator: (op: SegmentOperator) => void;
  /** The API's message about the segments (`invalid field segmentKey or segmentKeys: …`, a missing segment). */
  error?: string | null;
  operatorError?: string | null;
}

/** Many segments get a filter box; a few are shown at once. */
const FILTER_FROM = 8;

export function SegmentPicker({ ns, segments, loadError, retry, selected, onSelected, operator, onOperator, error, operatorError }: SegmentPickerProps) {
  const id = useId();
  const [filter, setFilter] = useState('');
  const errorId = error ? `${id}-error` : undefined;

  let body;
  if (loadError) body = <LoadError error={loadError} retry={retry} />;
  else if (!segments) body = <Loading label="Loading segments…" />;
  else if (segments.length === 0)
    body = (
      <p class="picker-empty">
        There are no segments in namespace <strong class="mono">{ns}</strong> yet, and a rule needs one. <Link href={paths.newSegment(ns)}>Create a segment</Link>
      </p>
    );
  else {
    const needle = filter.trim().toLowerCase();
    // Picked segments stay visible whatever the filter says.
    const shown = needle === '' ? segments : segments.filter((s) => selected.includes(s.key) || `${s.key} ${s.name}`.toLowerCase().includes(needle));
    body = (
      <>
        {segments.length >= FILTER_FROM && (
          <input type="search" class="search picker-filter" placeholder="Filter segments" aria-label="Filter segments" value={filter} onInput={(e) => setFilter(e.currentTarget.value)} />
        )}
        <ul class="picker-options">
          {shown.map((s) => {
            const checked = selected.includes(s.key);
            const order = selected.indexOf(s.key);
            return (
              <li key={s.key}>
                <label class={checked ? 'picker-option checked' : 'picker-option'}>
                  <input
                    type="checkbox"
                    checked={checked}
                    aria-describedby={errorId}
                    onChange={(e) => onSelected(e.currentTarget.checked ? [...selected, s.key] : selected.filter((k) => k !== s.key))}
                  />
                  <span class="mono">{s.key}</span>
                  {s.name !== s.key && <span class="muted">{s.name}</span>}
                  <span class="picker-meta muted">
                    {constraintSummary(s)}
                    {checked && selected.length > 1 && ` · #${order + 1}`}
                  </span>
                </label>
              </li>
            );
          })}
        </ul>
      </>
    );
  }

  return (
    <fieldset class={error ? 'rule-fieldset rule-picker field-invalid' : 'rule-fieldset rule-picker'} aria-describedby={errorId}>
      <legend>Segments</legend>
      {body}
      {error && (
        <p class="field-error" id={errorId} data-field="segmentKeys">
          {error}
        </p>
      )}
      {selected.length > 1 && (
        <div class="rule-choice rule-operator" role="radiogroup" aria-label="Segment operator">
          <label>
            <input type="radio" name={`${id}-op`} checked={operator === 'AND_SEGMENT_OPERATOR'} onChange={() => onOperator('AND_SEGMENT_OPERATOR')} />
            All of them (AND)
          </label>
          <label>
            <input type="radio" name={`${id}-op`} checked={operator === 'OR_SEGMENT_OPERATOR'} onChange={() => onOperator('OR_SEGMENT_OPERATOR')} />
            Any of them (OR)
          </label>
          {operatorError && (
            <p class="field-error" data-field="segmentOperator">
              {operatorError}
            </p>
          )}
        </div>
      )}
    </fieldset>
  );
}

function constraintSummary(s: Segment): string {
  const n = s.constraints.length;
  if (n === 0) return 'no constraints: matches everyone';
  return `${n} constraint${n === 1 ? '' : 's'}, ${s.matchType === 'ANY_MATCH_TYPE' ? 'any' : 'all'} must match`;
}

/** "a AND b" as shown in a rule's summary: each key links to its segment. */
export function SegmentList({ ns, keys, operator, segments }: { ns: string; keys: string[]; operator: SegmentOperator; segments?: Segment[] }) {
  const op = operator === 'AND_SEGMENT_OPERATOR' ? 'AND' : 'OR';
  return (
    <span class="rule-segments">
      {keys.map((key, i) => {
        const segment = segments?.find((s) => s.key === key);
        return (
          <span key={key}>
            {i > 0 && <span class="rule-op">{op}</span>}
            <Link href={paths.segment(ns, key)} draggable={false} class="rule-segment mono" title={segment && segment.name !== key ? segment.name : undefined}>
              {key}
            </Link>
          </span>
        );
      })}
    </span>
  );
}
