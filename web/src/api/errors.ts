/**
 * Errors from the API, as Flipt writes them: `{code, message, details}` with the gRPC code.
 * Validation messages name their field (`invalid field key: contains invalid characters`,
 * `invalid field segmentKey or segmentKeys: must not be empty`), which lets a form put the
 * message next to the input it concerns instead of at the top of the page. Messages that are
 * about something else the server says in its own shorthand (`flag "shop/dark-mode" is not
 * unique`) are reworded for the reader; the server's words stay in `serverMessage`.
 */
export class ApiError extends Error {
  /** What a reworded message is about: a key already taken, a segment still used, a key that names nothing. */
  readonly kind: 'duplicate' | 'in-use' | 'not-found' | null;
  /** The server's own message (the same as `message` unless that was reworded). */
  readonly serverMessage: string;

  constructor(
    /** HTTP status; 0 when the server could not be reached. */
    readonly status: number,
    /** The gRPC code from the body (3 invalid, 5 not found, 16 unauthenticated, …); 0 when none. */
    readonly code: number,
    message: string,
    /** The fields the message is about, from Flipt's `invalid field <name>:` wording; empty when none. */
    readonly fields: string[],
  ) {
    const known = reworded(message);
    super(known?.text ?? message);
    this.name = 'ApiError';
    this.kind = known?.kind ?? null;
    this.serverMessage = message;
  }

  /** The message without Flipt's `invalid field <name>:` prefix, for showing beside that field. */
  get reason(): string {
    const match = FIELD_MESSAGE.exec(this.message);
    return match ? match[2] : this.message;
  }
}

/**
 * The server's messages that name a resource by reference (internal/storage/sql: Flipt's words,
 * `"namespace/key"`), in words a reader of the dashboard uses. Keys hold no `/` or `"`.
 */
const REWORDED: [RegExp, NonNullable<ApiError['kind']>, (m: string[]) => string][] = [
  [/^(flag|segment) "([^"/]*)\/([^"]*)" is not unique$/, 'duplicate', ([, kind, ns, key]) => `A ${kind} with key ${key} already exists in namespace ${ns}.`],
  [/^namespace "([^"]*)" is not unique$/, 'duplicate', ([, key]) => `A namespace with key ${key} already exists.`],
  [/^variant "([^"]*)" is not unique for flag "([^"/]*)\/([^"]*)"$/, 'duplicate', ([, key, , flag]) => `Flag ${flag} already has a variant with key ${key}.`],
  [/^not unique$/, 'duplicate', () => 'Something with this key already exists.'],
  [/^segment "([^"/]*)\/([^"]*)" is in use$/, 'in-use', ([, ns, key]) => `Segment ${key} is used by rules or rollouts in namespace ${ns}, so it cannot be deleted.`],
  [/^(flag|segment) "([^"/]*)\/([^"]*)" not found$/, 'not-found', ([, kind, ns, key]) => `There is no ${kind} ${key} in namespace ${ns}.`],
  [/^namespace "([^"]*)" not found$/, 'not-found', ([, key]) => `There is no namespace ${key}.`],
];

function reworded(message: string): { kind: NonNullable<ApiError['kind']>; text: string } | null {
  for (const [pattern, kind, text] of REWORDED) {
    const match = pattern.exec(message);
    if (match) return { kind, text: text([...match]) };
  }
  return null;
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
 * to `form`. Uniqueness errors (a key already taken) are about the key.
 */
export function formErrors(error: unknown, known: readonly string[]): { fields: Record<string, string>; form: string | null } {
  if (!error) return { fields: {}, form: null };
  if (!(error instanceof ApiError)) return { fields: {}, form: error instanceof Error ? error.message : String(error) };
  const fields: Record<string, string> = {};
  for (const field of error.fields) if (known.includes(field)) fields[field] = error.reason;
  if (Object.keys(fields).length === 0 && error.kind === 'duplicate' && known.includes('key')) fields.key = error.message;
  return { fields, form: Object.keys(fields).length === 0 ? error.message : null };
}
