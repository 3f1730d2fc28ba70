/**
 * Source positions for decoded objects: for each map or list, the line of each entry, the
 * original text of scalars that were not strings (so `value: 2.50` reads back as "2.50", as
 * Go's YAML decoder gives a string field), and each list item's index in the source (null
 * entries are dropped when decoding). They ride on the objects under symbol keys that are not
 * enumerable, so documents stay plain data to everything else (JSON, keys, spreads, equality):
 * a WeakMap beside them cost a quarter of the YAML reading of a large import, mostly in garbage
 * collection.
 */

export interface Positions {
  /** Line of the map or list itself. */
  line?: number;
  /** Line of each entry, by key or index. */
  lines?: Map<string | number, number>;
  /** Source text of non-string scalars, by key or index. */
  sources?: Map<string | number, string>;
}

const POSITIONS = Symbol('positions');
const INDEX = Symbol('index');

export function setPositions(target: object, value: Positions): void {
  Object.defineProperty(target, POSITIONS, { value, writable: true, configurable: true });
}

export function positionsOf(target: object): Positions | undefined {
  return (target as { [POSITIONS]?: Positions })[POSITIONS];
}

/** The 1-based line of `key` in `target` (or of `target` itself), when known. */
export function lineOf(target: object | undefined, key?: string | number): number | undefined {
  if (target === undefined) return undefined;
  const p = positionsOf(target);
  if (!p) return undefined;
  return (key !== undefined ? p.lines?.get(key) : undefined) ?? p.line;
}

export function sourceOf(target: object, key: string | number): string | undefined {
  return positionsOf(target)?.sources?.get(key);
}

/** Remembers an item's index in its source list. */
export function setIndex(item: object, index: number): void {
  Object.defineProperty(item, INDEX, { value: index, writable: true, configurable: true });
}

/** The item's index in its source list (`fallback` when not recorded). */
export function indexOf(item: object, fallback: number): number {
  return (item as { [INDEX]?: number })[INDEX] ?? fallback;
}
