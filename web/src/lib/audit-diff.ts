/**
 * What an audit event changed, field by field: the object before and after (the API's JSON, as
 * the audit route gives them) → the fields that differ, with nested objects followed down to
 * their fields (`metadata.team`) and lists of objects matched by identity, not position
 * (`variants[blue].name`), so a change to one variant is one line, not the whole list. A created
 * object is its fields; a deleted one, the fields it had. Pure: unit-tested, and used by the
 * flag and segment pages' History and the Audit screen (components/audit-events.tsx).
 */

export type ChangeKind = 'added' | 'removed' | 'changed';

export interface FieldChange {
  /** Where in the object: `name`, `metadata.team`, `variants[blue].name`, `constraints[2]`. */
  path: string;
  kind: ChangeKind;
  /** Absent for `added`. */
  before?: unknown;
  /** Absent for `removed`. */
  after?: unknown;
}

/**
 * Fields that every version of an object carries and that say nothing about what changed: the
 * event has its own time, and an update always moves `updatedAt`.
 */
const NOISE = new Set(['createdAt', 'updatedAt']);

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Whether two JSON values are the same, noise fields aside. */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => sameValue(x, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
    for (const k of keys) if (!NOISE.has(k) && !sameValue(a[k], b[k])) return false;
    return true;
  }
  return false;
}

/** An object's name in a list: its `key` (variants, flags, segments), else its place (1-based). */
function itemLabel(item: Json, index: number): string {
  return typeof item.key === 'string' && item.key !== '' ? item.key : String(index + 1);
}

/** `a.b`, or `a["odd key"]` for a key that is not a plain word (metadata keys can be anything). */
function child(path: string, key: string): string {
  if (/^[A-Za-z_$][\w$-]*$/.test(key)) return path === '' ? key : `${path}.${key}`;
  return `${path}[${JSON.stringify(key)}]`;
}

/** Lists whose items all carry a string `id` are matched by it: a list of objects the API identifies. */
function identified(list: unknown[]): list is (Json & { id: string })[] {
  return list.length > 0 && list.every((x) => isObject(x) && typeof x.id === 'string' && x.id !== '');
}

function walk(path: string, a: unknown, b: unknown, out: FieldChange[]): void {
  if (sameValue(a, b)) return;
  // A map that appears or goes (a flag's metadata) is read as its fields appearing or going, each on its line.
  if (a === undefined && isObject(b) && b.id === undefined) return walk(path, {}, b, out);
  if (b === undefined && isObject(a) && a.id === undefined) return walk(path, a, {}, out);
  if (a === undefined) {
    out.push({ path, kind: 'added', after: b });
    return;
  }
  if (b === undefined) {
    out.push({ path, kind: 'removed', before: a });
    return;
  }
  // Two objects the API identifies differently (the default variant moved from one to another) are not one object changed.
  if (isObject(a) && isObject(b) && !(typeof a.id === 'string' && typeof b.id === 'string' && a.id !== b.id)) {
    // The order of the object after, then the fields it lost.
    const keys = [...Object.keys(b), ...Object.keys(a).filter((k) => !(k in b))];
    for (const k of keys) if (!NOISE.has(k)) walk(child(path, k), a[k], b[k], out);
    return;
  }
  if (Array.isArray(a) && Array.isArray(b) && (identified(a) || a.length === 0) && (identified(b) || b.length === 0) && a.length + b.length > 0) {
    walkIdentified(path, a as (Json & { id: string })[], b as (Json & { id: string })[], out);
    return;
  }
  out.push({ path, kind: 'changed', before: a, after: b });
}

/** Lists of identified objects: each kept item's own changes, each item added or removed whole, and a new order. */
function walkIdentified(path: string, a: (Json & { id: string })[], b: (Json & { id: string })[], out: FieldChange[]): void {
  const beforeById = new Map(a.map((item, i) => [item.id, { item, i }]));
  const afterIds = new Set(b.map((item) => item.id));
  b.forEach((item, i) => {
    const old = beforeById.get(item.id);
    const at = `${path}[${itemLabel(item, i)}]`;
    if (old) walk(at, old.item, item, out);
    else out.push({ path: at, kind: 'added', after: item });
  });
  a.forEach((item, i) => {
    if (!afterIds.has(item.id)) out.push({ path: `${path}[${itemLabel(item, i)}]`, kind: 'removed', before: item });
  });
  // The same items in another order: said once, as the order of their names.
  const keptBefore = a.filter((item) => afterIds.has(item.id));
  const keptAfter = b.filter((item) => beforeById.has(item.id));
  if (keptBefore.some((item, i) => item.id !== keptAfter[i].id)) {
    out.push({
      path: `${path} (order)`,
      kind: 'changed',
      before: keptBefore.map((item) => itemLabel(item, beforeById.get(item.id)!.i)),
      after: keptAfter.map((item) => itemLabel(item, b.indexOf(item))),
    });
  }
}

/** The fields that differ between two versions of an object (either may be null: created, deleted). */
export function diffObjects(before: unknown, after: unknown): FieldChange[] {
  const out: FieldChange[] = [];
  if (before === null || before === undefined) {
    for (const [path, value] of fields(after)) out.push({ path, kind: 'added', after: value });
  } else if (after === null || after === undefined) {
    for (const [path, value] of fields(before)) out.push({ path, kind: 'removed', before: value });
  } else {
    walk('', before, after, out);
  }
  return out;
}

/**
 * A whole object's fields, for a create or a delete: those with a value (an empty description,
 * list or map says nothing about what was made), noise aside; a value that is not an object is
 * one field named `value`.
 */
function fields(value: unknown): [string, unknown][] {
  if (value === null || value === undefined) return [];
  if (!isObject(value)) return [['value', value]];
  return Object.entries(value).filter(([k, v]) => !NOISE.has(k) && !isEmpty(v));
}

function isEmpty(v: unknown): boolean {
  return v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0) || (isObject(v) && Object.keys(v).length === 0);
}

/** What an audit event changed: its `before` against its `payload` (the object after). */
export function eventChanges(event: { before: unknown; payload: unknown }): FieldChange[] {
  return diffObjects(event.before, event.payload);
}

/** Drops noise fields at every depth, for showing a nested object whole. */
function withoutNoise(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutNoise);
  if (!isObject(value)) return value;
  return Object.fromEntries(Object.entries(value).filter(([k]) => !NOISE.has(k)).map(([k, v]) => [k, withoutNoise(v)]));
}

/**
 * A value as one line of text: strings quoted (so `""` and `"none"` read as strings), `none`
 * for null, objects and lists as compact JSON without their timestamps.
 */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'none';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(withoutNoise(value));
}
