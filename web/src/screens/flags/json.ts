import { notJson } from '../../lib/json-syntax';

/**
 * JSON typed into the flag screens' editors (variant attachments, flag metadata), checked in the
 * browser before anything is sent: where the text goes wrong (line, column, what was expected)
 * says more than the server's "must be a json string", and more plainly than the browser's parser.
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Any JSON value; `''` (or blanks) is "none" and parses to undefined. */
export function parseJson(text: string): Parsed<unknown> {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false, error: notJson(text) };
  }
}

/** A JSON object (flag metadata must be one); `''` is the empty object. */
export function parseJsonObject(text: string): Parsed<Record<string, unknown>> {
  const parsed = parseJson(text);
  if (!parsed.ok) return parsed;
  if (parsed.value === undefined) return { ok: true, value: {} };
  if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
    return { ok: false, error: 'Must be a JSON object, such as {"team": "payments"}.' };
  }
  return { ok: true, value: parsed.value as Record<string, unknown> };
}

/** JSON text indented for reading; text that does not parse is returned as it is. */
export function pretty(text: string): string {
  const parsed = parseJson(text);
  return parsed.ok && parsed.value !== undefined ? JSON.stringify(parsed.value, null, 2) : text;
}

/** An object as the editors show it: indented, or '' when empty. */
export function prettyObject(value: Record<string, unknown> | undefined): string {
  return value && Object.keys(value).length > 0 ? JSON.stringify(value, null, 2) : '';
}
