import { emptyField, invalidField, MAX_JSON_DEPTH, nestsDeeperThan } from '../core';

/** Flipt's key pattern (the comma is allowed); checked on create of namespaces, flags, segments. */
export const KEY_PATTERN = /^[-_,A-Za-z0-9]+$/;

/** Keys, names, ids, properties and operators live in VARCHAR(255) columns on every database. */
export const MAX_SHORT_TEXT = 255;

/** Flipt: variant attachments up to 1000 KB. */
export const MAX_ATTACHMENT_BYTES = 1000 * 1024;

export function required(value: string, field: string): void {
  if (value === '') throw emptyField(field);
  if (value.length > MAX_SHORT_TEXT) throw invalidField(field, `must be at most ${MAX_SHORT_TEXT} characters`);
}

/** Optional short text (a name that may be empty) still has the column's bound. */
export function bounded(value: string, field: string): void {
  if (value.length > MAX_SHORT_TEXT) throw invalidField(field, `must be at most ${MAX_SHORT_TEXT} characters`);
}

export function requiredKey(key: string): void {
  required(key, 'key');
  if (!KEY_PATTERN.test(key)) throw invalidField('key', 'contains invalid characters');
}

/**
 * `segmentKey` (deprecated) or `segmentKeys`, never both; duplicates dropped, order kept.
 * Used by rules and segment rollouts alike.
 */
export function segmentKeysOf(req: { segmentKey: string; segmentKeys: string[] }): string[] {
  if (req.segmentKey === '' && req.segmentKeys.length === 0) throw emptyField('segmentKey or segmentKeys');
  if (req.segmentKey !== '' && req.segmentKeys.length > 0) {
    throw invalidField('segmentKey or segmentKeys', 'only one can be present');
  }
  const keys = req.segmentKey !== '' ? [req.segmentKey] : [...new Set(req.segmentKeys)];
  for (const key of keys) required(key, 'segmentKeys');
  return keys;
}

/** Removes insignificant whitespace from valid JSON text, keeping every token as written. */
export function compactJson(text: string): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      out += c;
      if (c === '\\') out += text[++i];
      else if (c === '"') inString = false;
    } else if (c === '"') {
      inString = true;
      out += c;
    } else if (c !== ' ' && c !== '\n' && c !== '\r' && c !== '\t') {
      out += c;
    }
  }
  return out;
}

export function validAttachment(attachment: string): string {
  if (attachment === '') return '';
  try {
    JSON.parse(attachment);
  } catch {
    throw invalidField('attachment', 'must be a json string');
  }
  // JSON inside a string escapes the request body's depth check; exports and the dashboard
  // walk attachments recursively, so they get the same bound.
  if (nestsDeeperThan(attachment)) throw invalidField('attachment', `must not nest arrays and objects deeper than ${MAX_JSON_DEPTH} levels`);
  if (Buffer.byteLength(attachment) > MAX_ATTACHMENT_BYTES) {
    throw invalidField('attachment', 'must be less than 1000 KB');
  }
  return compactJson(attachment);
}
