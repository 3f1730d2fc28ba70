import type { ComponentChildren } from 'preact';

/**
 * The markup every management table shares: the table in its box (which scrolls sideways in a
 * narrow window, not the page), plain column headers, the row actions' column and buttons.
 * Sorting, paging and search are components/table-tools.tsx.
 *
 *   <Table label="Constraints" head={<Headers labels={['Property', 'Type']} actions />}>
 *     {list.map((c) => (
 *       <tr key={c.id}>… <RowActions name={`constraint on ${c.property}`} readOnly={readOnly} onEdit={…} onDelete={…} /></tr>
 *     ))}
 *   </Table>
 */
export function Table({ label, class: extra, head, children }: { label?: string; class?: string; head: ComponentChildren; children: ComponentChildren }) {
  return (
    <div class="table-wrap">
      <table class={extra ? `table ${extra}` : 'table'} aria-label={label}>
        <thead>
          <tr>{head}</tr>
        </thead>
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** Plain column headers; with `actions`, then the row actions' column (named for assistive technology only). */
export function Headers({ labels, actions }: { labels: string[]; actions?: boolean }) {
  return (
    <>
      {labels.map((label) => (
        <th key={label} scope="col">
          {label}
        </th>
      ))}
      {actions && (
        <th scope="col">
          <span class="visually-hidden">Actions</span>
        </th>
      )}
    </>
  );
}

/**
 * A row's Edit and Delete buttons, each shown when it has a handler and the row is not
 * `readOnly`. `name` completes their accessible names: "Edit variant blue", "Delete namespace x".
 */
export function RowActions({ name, readOnly, onEdit, onDelete }: { name: string; readOnly?: boolean; onEdit?: () => void; onDelete?: () => void }) {
  const edit = !readOnly && onEdit;
  const remove = !readOnly && onDelete;
  return (
    <td class="row-actions">
      {edit && (
        <button type="button" class="button button-small" onClick={edit} aria-label={`Edit ${name}`}>
          Edit
        </button>
      )}
      {edit && remove && ' '}
      {remove && (
        <button type="button" class="button button-small button-danger-quiet" onClick={remove} aria-label={`Delete ${name}`}>
          Delete
        </button>
      )}
    </td>
  );
}
