import { LIST_OPERATORS, NO_VALUE_OPERATORS } from '../../api/segments';
import type { ComparisonType } from '../../api/types';

/**
 * A constraint's value as the form edits it, and back to what the API stores: nothing for
 * operators without a value, a JSON array for "is one of", an RFC 3339 instant for datetimes
 * (edited in the reader's local time), the text otherwise. The server validates the result;
 * these only translate (a list item "abc" for a number goes as the string "abc", and the
 * server's refusal is shown beside the value).
 */
export type ValueKind = 'none' | 'list' | 'number' | 'datetime' | 'text';

export function valueKind(type: ComparisonType, operator: string): ValueKind {
  if (NO_VALUE_OPERATORS.has(operator)) return 'none';
  if (LIST_OPERATORS.has(operator)) return 'list';
  if (type === 'NUMBER_COMPARISON_TYPE') return 'number';
  if (type === 'DATETIME_COMPARISON_TYPE') return 'datetime';
  return 'text';
}

/** What the inputs hold: one value, or the items of a list (datetimes as local `YYYY-MM-DDTHH:mm:ss`). */
export interface ValueState {
  single: string;
  list: string[];
}

export const EMPTY_VALUE: ValueState = { single: '', list: [''] };

export function valueStateFrom(type: ComparisonType, operator: string, value: string): ValueState {
  const datetime = type === 'DATETIME_COMPARISON_TYPE';
  if (valueKind(type, operator) === 'list') {
    let items: string[] = [value];
    try {
      const parsed: unknown = JSON.parse(value);
      if (Array.isArray(parsed)) items = parsed.map((v) => String(v ?? ''));
    } catch {
      // Not JSON (stored by an older client): shown as one item, for the user to mend.
    }
    return { single: '', list: (datetime ? items.map(toLocalInput) : items).concat(items.length === 0 ? [''] : []) };
  }
  return { single: datetime ? toLocalInput(value) : value, list: [''] };
}

export function valueFrom(type: ComparisonType, operator: string, state: ValueState): string {
  const kind = valueKind(type, operator);
  if (kind === 'none') return '';
  if (kind === 'datetime') return state.single === '' ? '' : fromLocalInput(state.single);
  if (kind !== 'list') return state.single.trim();
  const items = state.list.map((v) => v.trim()).filter((v) => v !== '');
  if (items.length === 0) return '';
  if (type === 'NUMBER_COMPARISON_TYPE') return JSON.stringify(items.map((v) => (NUMERIC.test(v) ? Number(v) : v)));
  if (type === 'DATETIME_COMPARISON_TYPE') return JSON.stringify(items.map(fromLocalInput));
  return JSON.stringify(items);
}

const NUMERIC = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

const pad = (n: number) => String(n).padStart(2, '0');

/** An RFC 3339 instant (or `YYYY-MM-DD`) → a datetime-local input's value in the reader's time zone. */
export function toLocalInput(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T00:00:00`;
  const date = new Date(value);
  if (value === '' || Number.isNaN(date.getTime())) return value;
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** A datetime-local value (the reader's time zone) → RFC 3339 in UTC; anything unreadable as it is, for the server to refuse. */
export function fromLocalInput(local: string): string {
  const date = new Date(local);
  if (local === '' || Number.isNaN(date.getTime())) return local;
  return date.toISOString().replace(/\.000Z$/, 'Z');
}

/** A stored value for reading: lists as their items, datetimes in local time too. */
export function describeValue(type: ComparisonType, operator: string, value: string): string[] {
  const kind = valueKind(type, operator);
  if (kind === 'none') return [];
  const items = kind === 'list' ? valueStateFrom(type, operator, value).list.filter((v) => v !== '') : [value];
  if (type !== 'DATETIME_COMPARISON_TYPE') return items;
  return items.map((v) => {
    const date = new Date(kind === 'list' ? v : toLocalInput(v));
    return Number.isNaN(date.getTime()) ? v : date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
  });
}
