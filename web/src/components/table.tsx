import type { ComponentChildren, RefObject } from 'preact';
import { useLayoutEffect, useRef } from 'preact/hooks';

/**
 * The markup every management table shares: the table in its box (which scrolls sideways in a
 * narrow window, not the page), plain column headers, the row actions' column and buttons.
 * A box that scrolls shows it — a shade on the side where columns are out of sight — and the
 * row actions stay in sight at its right edge whatever the scroll.
 * Sorting, paging and search are components/table-tools.tsx.
 *
 *   <Table label="Constraints" head={<Headers labels={['Property', 'Type']} actions />}>
 *     {list.map((c) => (
 *       <tr key={c.id}>… <RowActions name={`constraint on ${c.property}`} readOnly={readOnly} onEdit={…} onDelete={…} /></tr>
 *     ))}
 *   </Table>
 */
export function Table({ label, class: extra, head, children }: { label?: string; class?: string; head: ComponentChildren; children: ComponentChildren }) {
  const box = useRef<HTMLDivElement>(null);
  const scroller = useRef<HTMLDivElement>(null);
  useSidewaysHints(box, scroller);
  return (
    <div class="table-box" ref={box}>
      <div class="table-wrap" ref={scroller}>
        <table class={extra ? `table ${extra}` : 'table'} aria-label={label}>
          <thead>
            <tr>{head}</tr>
          </thead>
          <tbody>{children}</tbody>
        </table>
      </div>
    </div>
  );
}

/**
 * Marks the box with `data-more-start` / `data-more-end` while columns are out of sight on that
 * side (the stylesheet shades it), following scrolls and size changes, and `data-sticky-actions`
 * when the row actions' column is there. Set on the element, not through state: a scroll
 * re-renders nothing.
 */
function useSidewaysHints(box: RefObject<HTMLElement>, scroller: RefObject<HTMLElement>) {
  useLayoutEffect(() => {
    const outer = box.current;
    const inner = scroller.current;
    if (!outer || !inner) return;
    const update = () => {
      const hidden = inner.scrollWidth - inner.clientWidth;
      // A pixel of slack: zoomed pages report fractional widths.
      outer.toggleAttribute('data-more-start', inner.scrollLeft > 1);
      outer.toggleAttribute('data-more-end', inner.scrollLeft < hidden - 1);
      outer.toggleAttribute('data-sticky-actions', inner.querySelector('.row-actions-head') !== null);
    };
    update();
    inner.addEventListener('scroll', update, { passive: true });
    const resized = new ResizeObserver(update);
    resized.observe(inner);
    if (inner.firstElementChild) resized.observe(inner.firstElementChild);
    return () => {
      inner.removeEventListener('scroll', update);
      resized.disconnect();
    };
  }, []);
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
        <th scope="col" class="row-actions-head">
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
