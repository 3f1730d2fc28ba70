/**
 * Go's text rules, re-implemented: Flipt parses constraint values and context values with Go's
 * strconv and time packages (the matchers of `internal/server/evaluation/legacy_evaluator.go`),
 * and JavaScript's Number(), trim() and Date disagree with them on many inputs. Used by
 * evaluation and by constraint validation, so that what is stored and what is matched follow the
 * same rules.
 */

/** Unicode White_Space as Go's strings.TrimSpace sees it (not U+FEFF, not U+200B). */
const GO_SPACE = '\\t\\n\\v\\f\\r \\u0085\\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000';
const TRIM = new RegExp(`^[${GO_SPACE}]+|[${GO_SPACE}]+$`, 'g');

/** Whether a UTF-16 unit is one Go's TrimSpace removes (all are single units). */
function isGoSpace(c: number): boolean {
  return (
    (c >= 9 && c <= 13) || c === 32 || c === 0x85 || c === 0xa0 || c === 0x1680 || (c >= 0x2000 && c <= 0x200a) ||
    c === 0x2028 || c === 0x2029 || c === 0x202f || c === 0x205f || c === 0x3000
  );
}

export function goTrimSpace(s: string): string {
  // Fast path: nothing to trim (the common case on the evaluation path).
  if (s === '' || (!isGoSpace(s.charCodeAt(0)) && !isGoSpace(s.charCodeAt(s.length - 1)))) return s;
  return s.replace(TRIM, '');
}

/** strconv.ParseBool: exactly these spellings. */
export function parseGoBool(s: string): boolean | null {
  switch (s) {
    case '1': case 't': case 'T': case 'TRUE': case 'true': case 'True':
      return true;
    case '0': case 'f': case 'F': case 'FALSE': case 'false': case 'False':
      return false;
    default:
      return null;
  }
}

/** An underscore is allowed only with a digit (or a base prefix) on each side. */
function underscoresOk(body: string, hex: boolean): boolean {
  const isDigit = (c: string | undefined) => c !== undefined && (/[0-9]/.test(c) || (hex && /[a-fA-F]/.test(c)));
  for (let i = 0; i < body.length; i++) {
    if (body[i] !== '_') continue;
    const before = i === 0 ? (hex ? 'prefix' : undefined) : body[i - 1];
    if (!(before === 'prefix' || isDigit(before)) || !isDigit(body[i + 1])) return false;
  }
  return true;
}

const DECIMAL = /^[0-9_]*(\.[0-9_]*)?([eE][+-]?[0-9_]+)?$/;
const HEX = /^[0-9a-fA-F_]*(\.[0-9a-fA-F_]*)?[pP]([+-]?[0-9_]+)$/;

/** Plain decimals ("42", "-3.5", "0.25"): the common case, parsed without regular expressions. */
function plainDecimal(s: string): number | null {
  let i = s.charCodeAt(0) === 45 || s.charCodeAt(0) === 43 ? 1 : 0;
  let digits = 0;
  let dot = false;
  for (; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 48 && c <= 57) digits++;
    else if (c === 46 && !dot) dot = true;
    else return null;
  }
  return digits > 0 && s.length <= 15 ? Number(s) : null;
}

/** strconv.ParseFloat(s, 64): null where Go returns an error (syntax, or overflow). */
export function parseGoFloat(s: string): number | null {
  if (s.length > 0) {
    const plain = plainDecimal(s);
    if (plain !== null) return plain;
  }
  let sign = 1;
  let body = s;
  if (body.startsWith('+') || body.startsWith('-')) {
    sign = body[0] === '-' ? -1 : 1;
    body = body.slice(1);
  }
  const lower = body.toLowerCase();
  if (lower === 'inf' || lower === 'infinity') return sign * Infinity;
  if (lower === 'nan') return s === body ? NaN : null; // a signed NaN is an error in Go

  let value: number;
  if (/^0[xX]/.test(body)) {
    const hex = body.slice(2);
    const m = HEX.exec(hex);
    if (!m || !underscoresOk(hex, true)) return null;
    const [mantissaText, exponentText] = hex.replace(/_/g, '').split(/[pP]/);
    const [intPart, fracPart = ''] = mantissaText.split('.');
    if (intPart === '' && fracPart === '') return null;
    value = Number(BigInt(`0x${intPart}${fracPart}`)) * 2 ** (Number(exponentText) - 4 * fracPart.length);
  } else {
    if (!DECIMAL.test(body) || !underscoresOk(body, false)) return null;
    const clean = body.replace(/_/g, '');
    const mantissa = clean.split(/[eE]/)[0];
    if (!/[0-9]/.test(mantissa)) return null;
    value = Number(clean);
  }
  return Number.isFinite(value) ? sign * value : null; // overflow is ErrRange in Go
}

/** An instant with nanosecond precision: whole seconds since the epoch plus nanoseconds. */
export interface GoTime {
  seconds: number;
  nanos: number;
  /** True when the text was a date only (YYYY-MM-DD). */
  dateOnly: boolean;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;
const DATE_ONLY = /^(\d{4})-(\d{2})-(\d{2})$/;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

function epochSeconds(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d); // setUTCFullYear keeps years 0-99 literal
  date.setUTCHours(h, mi, s, 0);
  return date.getTime() / 1000;
}

function validDate(y: number, mo: number, d: number): boolean {
  return mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo);
}

/** time.Parse(time.RFC3339, s), then time.Parse(time.DateOnly, s), as Flipt tries them. */
export function parseGoDateTime(s: string): GoTime | null {
  const m = RFC3339.exec(s);
  if (m) {
    const [y, mo, d, h, mi, sec] = m.slice(1, 7).map(Number);
    if (!validDate(y, mo, d) || h > 23 || mi > 59 || sec > 59) return null;
    let offset = 0;
    if (m[8] !== 'Z') {
      const oh = Number(m[8].slice(1, 3));
      const om = Number(m[8].slice(4, 6));
      if (oh > 23 || om > 59) return null;
      offset = (m[8][0] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
    }
    const nanos = m[7] ? Number(m[7].padEnd(9, '0')) : 0;
    return { seconds: epochSeconds(y, mo, d, h, mi, sec) - offset, nanos, dateOnly: false };
  }
  const dm = DATE_ONLY.exec(s);
  if (dm) {
    const [y, mo, d] = dm.slice(1, 4).map(Number);
    if (!validDate(y, mo, d)) return null;
    return { seconds: epochSeconds(y, mo, d, 0, 0, 0), nanos: 0, dateOnly: true };
  }
  return null;
}

/** -1, 0 or 1. */
export function compareGoTime(a: GoTime, b: GoTime): number {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds ? -1 : 1;
  return a.nanos === b.nanos ? 0 : a.nanos < b.nanos ? -1 : 1;
}

/** Go's Format(time.RFC3339) in UTC (no fractional seconds), or DateOnly for a date. */
export function formatGoTime(t: GoTime): string {
  const iso = new Date(t.seconds * 1000).toISOString();
  return t.dateOnly ? iso.slice(0, 10) : `${iso.slice(0, 19)}Z`;
}

/**
 * Go's %q (strconv.Quote) for messages that Flipt formats with it: printable text as is,
 * `"` and `\` escaped, control and non-printable characters as Go writes them.
 */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; break;
      case '\\': out += '\\\\'; break;
      case '\x07': out += '\\a'; break;
      case '\b': out += '\\b'; break;
      case '\f': out += '\\f'; break;
      case '\n': out += '\\n'; break;
      case '\r': out += '\\r'; break;
      case '\t': out += '\\t'; break;
      case '\v': out += '\\v'; break;
      default:
        if (cp < 0x20 || cp === 0x7f) out += `\\x${cp.toString(16).padStart(2, '0')}`;
        else if (/[\p{Cc}\p{Cf}\p{Co}\p{Cn}\p{Zl}\p{Zp}]/u.test(ch) || (/\p{Zs}/u.test(ch) && ch !== ' ')) {
          out += cp > 0xffff ? `\\U${cp.toString(16).padStart(8, '0')}` : `\\u${cp.toString(16).padStart(4, '0')}`;
        } else out += ch;
    }
  }
  return `${out}"`;
}
