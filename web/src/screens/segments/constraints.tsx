import { useState } from 'preact/hooks';
import { comparisonTypeLabel, operatorLabel, segments as api } from '../../api/segments';
import type { Constraint, Segment } from '../../api/types';
import { ConfirmDialog } from '../../components/confirm-dialog';
import { Empty } from '../../components/states';
import { Headers, RowActions, Table } from '../../components/table';
import { useToast } from '../../components/toast';
import { ConstraintForm } from './constraint-form';
import { FormDialog } from '../../components/form-dialog';
import { describeValue } from './value';

/**
 * A segment's constraints: a table (property, type, operator, value, description) with edit and
 * delete on each row, and "Add constraint". The editor is a dialog; `reload` fetches the segment
 * again after every change, so the table is always the server's.
 */
export function ConstraintsSection({ ns, segment, readOnly, reload }: { ns: string; segment: Segment; readOnly: boolean; reload: () => void }) {
  const toast = useToast();
  // null: closed; 'new': adding; a constraint: editing it.
  const [editing, setEditing] = useState<Constraint | 'new' | null>(null);
  const [doomed, setDoomed] = useState<Constraint | null>(null);
  const list = segment.constraints;
  const joiner = segment.matchType === 'ANY_MATCH_TYPE' ? 'any' : 'all';

  return (
    <section class="segment-section" aria-labelledby="constraints-title">
      <header class="segment-section-header">
        <div>
          <h2 id="constraints-title">Constraints</h2>
          <p class="muted segment-section-note">
            {list.length === 0
              ? 'Without constraints the segment matches every entity.'
              : `An entity is in this segment when ${joiner === 'all' ? 'every constraint below matches' : 'at least one constraint below matches'} (match type ${joiner.toUpperCase()}).`}
          </p>
        </div>
        {!readOnly && (
          <button type="button" class="button button-primary" onClick={() => setEditing('new')}>
            Add constraint
          </button>
        )}
      </header>
      {list.length === 0 ? (
        <Empty title="No constraints yet.">{!readOnly && <p>Add one to pick entities by their context: country equals "FR", age is greater than 18 …</p>}</Empty>
      ) : (
        <Table label="Constraints" head={<Headers labels={['Property', 'Type', 'Operator', 'Value', 'Description']} actions />}>
          {list.map((c) => (
            <tr key={c.id} data-id={c.id}>
              <td class="mono">{c.property}</td>
              <td>{comparisonTypeLabel(c.type)}</td>
              <td>
                {operatorLabel(c.type, c.operator)} <span class="muted mono segment-op-code">{c.operator}</span>
              </td>
              <td>
                <ConstraintValue constraint={c} />
              </td>
              <td class="muted">{c.description}</td>
              <RowActions name={`constraint on ${c.property}`} readOnly={readOnly} onEdit={() => setEditing(c)} onDelete={() => setDoomed(c)} />
            </tr>
          ))}
        </Table>
      )}

      <FormDialog open={editing !== null} title={editing === 'new' ? 'Add constraint' : 'Edit constraint'} onClose={() => setEditing(null)} size="wide">
        <ConstraintForm
          ns={ns}
          segmentKey={segment.key}
          existing={editing === 'new' || editing === null ? undefined : editing}
          onCancel={() => setEditing(null)}
          onSaved={(saved) => {
            toast.success(editing === 'new' ? `Constraint on ${saved.property} added` : `Constraint on ${saved.property} saved`);
            setEditing(null);
            reload();
          }}
        />
      </FormDialog>

      <ConfirmDialog
        open={doomed !== null}
        title="Delete constraint?"
        confirmLabel="Delete"
        danger
        onConfirm={async () => {
          await api.deleteConstraint(ns, segment.key, doomed!.id);
          toast.success(`Constraint on ${doomed!.property} deleted`);
          reload();
        }}
        onClose={() => setDoomed(null)}
      >
        <p>
          The constraint on <strong class="mono">{doomed?.property}</strong> ({doomed && operatorLabel(doomed.type, doomed.operator)}) will no longer decide who is in{' '}
          <strong class="mono">{segment.key}</strong>.
        </p>
      </ConfirmDialog>
    </section>
  );
}

/** The value as a reader wants it: list items as chips, datetimes in local time too, nothing for "is present". */
function ConstraintValue({ constraint: c }: { constraint: Constraint }) {
  const shown = describeValue(c.type, c.operator, c.value);
  if (shown.length === 0) return <span class="muted">—</span>;
  if (c.operator === 'isoneof' || c.operator === 'isnotoneof')
    return (
      <ul class="segment-chips">
        {shown.map((v, i) => (
          <li key={i} class="segment-chip mono">
            {v}
          </li>
        ))}
      </ul>
    );
  return (
    <span class="mono" title={c.type === 'DATETIME_COMPARISON_TYPE' ? c.value : undefined}>
      {shown[0]}
    </span>
  );
}
