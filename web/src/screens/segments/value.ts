import { LIST_OPERATORS, NO_VALUE_OPERATORS } from '../../api/segments';
import type { ComparisonType } from '../../api/types';
import { formatDate, timeZoneChoice } from '../../lib/format';

/**
 * A constraint's value as the form edits it, and back to what the API stores: nothing for
 * operators without a value, a JSON array for "is one of", an RFC 3339 instant for datetimes
 * (edited in the zone the dashboard shows times in), the text otherwise. The server validates the result;
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

/** What the inputs hold: one value, or the items of a list (datetimes as datetime-local `YYYY-MM-DDTHH:mm:ss`). */
export interface ValueState {
  single: string;
  list: string[];
}

export const EMPTY_VALUE: ValueState = { single: '', list: [''] };

export function valueStateFrom(type: ComparisonType, operator: string, value: string): ValueState {
  const datetime = type === 'DATETIME_COMPARISON_TYPE';
  if (valueKind(type, operator) === 'list') {
    const items = parseList(value);
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

/** A stored list's items; a value that is not a JSON array is one item, for the user to mend. */
function parseList(value: string): string[] {
  try {
    const parsed: unknown = JSON.parse(value);
    if (Array.isArray(parsed)) return parsed.map((v) => String(v ?? ''));
  } catch {
    // Not JSON: below.
  }
  return value === '' ? [] : [value];
}

const NUMERIC = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * Date-times are edited in the zone the dashboard shows times in (Settings → General: the
 * reader's local zone, or UTC) and always sent as RFC 3339 in UTC.
 */
export function editsInUtc(): boolean {
  return timeZoneChoice() === 'utc';
}

/** An RFC 3339 instant (or `YYYY-MM-DD`) → a datetime-local input's value in the displayed zone. */
export function toLocalInput(value: string): string {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return `${value}T00:00:00`;
  const date = new Date(value);
  if (value === '' || Number.isNaN(date.getTime())) return value;
  if (editsInUtc()) return date.toISOString().slice(0, 19);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/** A datetime-local value (in the displayed zone) → RFC 3339 in UTC; anything unreadable as it is, for the server to refuse. */
export function fromLocalInput(local: string): string {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(local)) return local;
  const date = new Date(editsInUtc() ? `${local}Z` : local);
  if (Number.isNaN(date.getTime())) return local;
  return date.toISOString().replace(/\.000Z$/, 'Z');
}

/** A stored value for reading: lists as their items, datetimes in the displayed zone. */
export function describeValue(type: ComparisonType, operator: string, value: string): string[] {
  const kind = valueKind(type, operator);
  if (kind === 'none') return [];
  const items = kind === 'list' ? parseList(value) : [value];
  return type === 'DATETIME_COMPARISON_TYPE' ? items.map((v) => formatDate(v)) : items;
}
