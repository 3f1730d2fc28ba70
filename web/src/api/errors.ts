/**
 * Errors from the API, as Flipt writes them: `{code, message, details}` with the gRPC code.
 * Validation messages name their field (`invalid field key: contains invalid characters`,
 * `invalid field segmentKey or segmentKeys: must not be empty`), which lets a form put the
 * message next to the input it concerns instead of at the top of the page.
 */
export class ApiError extends Error {
  constructor(
    /** HTTP status; 0 when the server could not be reached. */
    readonly status: number,
    /** The gRPC code from the body (3 invalid, 5 not found, 16 unauthenticated, …); 0 when none. */
    readonly code: number,
    message: string,
    /** The fields the message is about, from Flipt's `invalid field <name>:` wording; empty when none. */
    readonly fields: string[],
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The message without Flipt's `invalid field <name>:` prefix, for showing beside that field. */
  get reason(): string {
    const match = FIELD_MESSAGE.exec(this.message);
    return match ? match[2] : this.message;
  }
}

const FIELD_MESSAGE = /^invalid field ([^:]+): (.*)$/s;

/** `invalid field threshold.percentage: …` → ['threshold.percentage']; `a or b` → ['a', 'b']. */
export function fieldsOf(message: string): string[] {
  const match = FIELD_MESSAGE.exec(message);
  if (!match) return [];
  return match[1].split(/\s+or\s+/).map((f) => f.trim());
}

/** An ApiError from a response that was not OK; the body may be Flipt's JSON or anything else. */
export function errorFrom(status: number, text: string): ApiError {
  let code = 0;
  let message = text.trim() === '' ? `HTTP ${status}` : text.trim().slice(0, 300);
  try {
    const body = JSON.parse(text) as { code?: unknown; message?: unknown };
    if (typeof body.code === 'number') code = body.code;
    if (typeof body.message === 'string' && body.message !== '') message = body.message;
  } catch {
    // Not JSON (a proxy's error page): keep the text.
  }
  return new ApiError(status, code, message, fieldsOf(message));
}

/**
 * Splits an error into what belongs beside a form's fields and what belongs at the form's top.
 * `known` lists the form's field names; a message about any other field, or about none, goes
 * to `form`. Uniqueness errors (`… is not unique`) are about the key.
 */
export function formErrors(error: unknown, known: readonly string[]): { fields: Record<string, string>; form: string | null } {
  if (!error) return { fields: {}, form: null };
  if (!(error instanceof ApiError)) return { fields: {}, form: error instanceof Error ? error.message : String(error) };
  const fields: Record<string, string> = {};
  for (const field of error.fields) if (known.includes(field)) fields[field] = error.reason;
  if (Object.keys(fields).length === 0 && /is not unique$/.test(error.message) && known.includes('key')) fields.key = error.message;
  return { fields, form: Object.keys(fields).length === 0 ? error.message : null };
}
