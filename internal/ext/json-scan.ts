/**
 * Where JSON values end, found by matching brackets and strings without parsing: how a JSON
 * stream is cut into documents (decode.ts) and a document into its members and list items
 * (json-layout.ts). Both return an offset past the text for what is unterminated.
 */

/** Where the string starting at `start` (a `"`) ends, past its closing quote. */
export function stringEnd(text: string, start: number): number {
  for (let k = start + 1; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 92) k++;
    else if (c === 34) return k + 1;
  }
  return text.length + 1;
}

/** Where the value starting at `start` ends: its matching bracket, its closing quote, or the end of a scalar (which may be empty). */
export function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start);
  if (first === 34) return stringEnd(text, start);
  if (first !== 123 && first !== 91) {
    let k = start;
    while (k < text.length && !/[\s{}[\],"]/.test(text[k])) k++;
    return k;
  }
  let depth = 0;
  for (let k = start; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 34) k = stringEnd(text, k) - 1;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return k + 1;
    }
  }
  return text.length + 1;
}
