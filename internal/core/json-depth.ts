/**
 * How deep arrays and objects may nest in JSON that a client sends: a request body, a
 * variant attachment, a webhook delivery. Real payloads nest a handful of levels; a few
 * thousand levels would overflow the stack of whatever walks the parsed value recursively
 * (JSON.stringify, YAML export, the dashboard), so such text is refused before it is parsed.
 * (Flipt's Go decoders stop at 10,000 levels; a JavaScript stack is far smaller.)
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`: one pass over the
 * characters, counting brackets outside strings, that stops at the first one past the limit.
 * No recursion and no allocation, so it is safe on any text; whether the text is valid JSON
 * is left to the parser that follows.
 */
export function nestsDeeperThan(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  // Going past the limit takes more than `limit` opening brackets. Counting them with the
  // native indexOf settles a typical evaluation body in ~30 ns, where the scan below (per
  // character, in JavaScript) costs about as much as parsing it.
  if (text.length <= limit || !moreOpenersThan(text, limit)) return false;
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Skip the string: brackets inside it are text.
      for (i++; i < length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) {
      depth--;
    }
  }
  return false;
}

/** Whether the text holds more than `limit` opening brackets, inside strings or not. */
function moreOpenersThan(text: string, limit: number): boolean {
  let count = 0;
  for (let i = text.indexOf('{'); i !== -1; i = text.indexOf('{', i + 1)) if (++count > limit) return true;
  for (let i = text.indexOf('['); i !== -1; i = text.indexOf('[', i + 1)) if (++count > limit) return true;
  return false;
}
