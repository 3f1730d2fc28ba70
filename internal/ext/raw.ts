/** One document of a stream as plain data (maps, lists, scalars), before it is read into the document model. */
export interface RawDocument {
  value: unknown;
  /** Line where the document's content starts. */
  line: number;
  /** The whole document is on one line (JSON lines): every field is on `line`. */
  singleLine?: boolean;
}

/** Sets a key even when it is `__proto__`, without touching the object's prototype. */
export function define(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
