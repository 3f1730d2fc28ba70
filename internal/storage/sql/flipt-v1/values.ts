import type { Micros } from '../../../core';

/**
 * Flipt v1's column values as each driver hands them over, read into Pennon's: timestamps as
 * epoch microseconds, booleans, numbers and JSON text.
 */

const TIMESTAMP = /^(\d{4})-(\d\d)-(\d\d)[ T](\d\d):(\d\d):(\d\d)(?:\.(\d+))?\s*(Z|[+-]\d\d(?::?\d\d)?)?(?:\s+[A-Z]{2,5})?$/;

/**
 * A SQL timestamp's text in epoch microseconds: PostgreSQL's (`2024-01-02 15:04:05.123456`, with
 * `+00` for timestamptz), MySQL's, and SQLite's — what Go's driver wrote
 * (`2024-01-02 15:04:05.123456789+00:00`) or CURRENT_TIMESTAMP (`2024-01-02 15:04:05`). Without an
 * offset it is UTC, as Flipt writes UTC. Nanoseconds are cut to microseconds.
 */
export function timestampMicros(value: unknown, column: string): Micros {
  if (value instanceof Date) return value.getTime() * 1000;
  const m = typeof value === 'string' ? TIMESTAMP.exec(value.trim()) : null;
  if (!m) throw new Error(`${column}: "${String(value)}" is not a timestamp`);
  const [, y, mo, d, h, mi, s, fraction = '', offset = 'Z'] = m;
  const seconds = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s)) / 1000;
  const micros = Number(fraction.padEnd(6, '0').slice(0, 6));
  let offsetSeconds = 0;
  if (offset !== 'Z') {
    const sign = offset.startsWith('-') ? -1 : 1;
    const digits = offset.slice(1).replace(':', '');
    offsetSeconds = sign * (Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2, 4) || '0') * 60);
  }
  return (seconds - offsetSeconds) * 1_000_000 + micros;
}

export function optionalTimestampMicros(value: unknown, column: string): Micros | null {
  return value === null || value === undefined || value === '' ? null : timestampMicros(value, column);
}

/** PostgreSQL's booleans, MySQL's and SQLite's 0/1, and the text forms. */
export function bool(value: unknown): boolean {
  return value === true || value === 1 || value === '1' || value === 't' || value === 'true' || value === 'TRUE';
}

export function num(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

export function text(value: unknown): string {
  return value === null || value === undefined ? '' : Buffer.isBuffer(value) ? value.toString('utf8') : String(value);
}

/** A JSON column (JSON text, or already parsed by the driver); null when absent or empty. */
export function json(value: unknown, column: string): unknown {
  if (value === null || value === undefined || value === '') return null;
  if (typeof value !== 'string' && !Buffer.isBuffer(value)) return value;
  try {
    return JSON.parse(text(value));
  } catch {
    throw new Error(`${column}: not JSON`);
  }
}
