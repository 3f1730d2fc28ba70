/**
 * Source positions for decoded objects, kept beside them (never on them, so documents stay
 * plain data): for each map or list, the line of each entry, the original text of scalars that
 * were not strings (so `value: 2.50` reads back as "2.50", as Go's YAML decoder gives a string
 * field), and each list item's index in the source (null entries are dropped when decoding).
 */

export interface Positions {
  /** Line of the map or list itself. */
  line?: number;
  /** Line of each entry, by key or index. */
  lines?: Map<string | number, number>;
  /** Source text of non-string scalars, by key or index. */
  sources?: Map<string | number, string>;
}

const positions = new WeakMap<object, Positions>();
const indexes = new WeakMap<object, number>();

export function setPositions(target: object, value: Positions): void {
  positions.set(target, value);
}

export function positionsOf(target: object): Positions | undefined {
  return positions.get(target);
}

/** The 1-based line of `key` in `target` (or of `target` itself), when known. */
export function lineOf(target: object | undefined, key?: string | number): number | undefined {
  if (target === undefined) return undefined;
  const p = positions.get(target);
  if (!p) return undefined;
  return (key !== undefined ? p.lines?.get(key) : undefined) ?? p.line;
}

export function sourceOf(target: object, key: string | number): string | undefined {
  return positions.get(target)?.sources?.get(key);
}

/** Remembers an item's index in its source list. */
export function setIndex(item: object, index: number): void {
  indexes.set(item, index);
}

/** The item's index in its source list (`fallback` when not recorded). */
export function indexOf(item: object, fallback: number): number {
  return indexes.get(item) ?? fallback;
}
