/**
 * JSON typed into the flag screens' editors (variant attachments, flag metadata), checked in the
 * browser before anything is sent: the issue asks for it, and the parser's own message (with
 * its position) says more than the server's "must be a json string".
 */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/** Any JSON value; `''` (or blanks) is "none" and parses to undefined. */
export function parseJson(text: string): Parsed<unknown> {
  if (text.trim() === '') return { ok: true, value: undefined };
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (err) {
    return { ok: false, error: `Not valid JSON: ${(err as Error).message}` };
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
