import type { EvaluationContext } from '../../api/evaluation';
import { notJson } from '../../lib/json-syntax';

/**
 * The context editor's text → Flipt's context, checked before anything is sent: a JSON object
 * whose values are strings (Flipt's context is map<string, string>; a number or boolean must
 * be written as text: `"age": "42"`). Empty text is an empty context.
 */
export type ParsedContext = { ok: true; context: EvaluationContext } | { ok: false; error: string; fixable: boolean };

export function parseContext(text: string): ParsedContext {
  if (text.trim() === '') return { ok: true, context: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, error: notJson(text), fixable: false };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, error: 'The context must be a JSON object, such as {"plan": "pro"}.', fixable: false };
  }
  const wrong = Object.entries(value as Record<string, unknown>).filter(([, v]) => typeof v !== 'string');
  if (wrong.length > 0) {
    const [key, v] = wrong[0];
    const what = v === null ? 'null' : Array.isArray(v) ? 'a list' : typeof v === 'object' ? 'an object' : `a ${typeof v}`;
    const more = wrong.length > 1 ? ` (and ${wrong.length - 1} more)` : '';
    return {
      ok: false,
      error: `Context values must be strings — Flipt's context is map<string, string>: "${key}" is ${what}${more}. Write it as text, e.g. "${key}": "${textOf(v)}".`,
      fixable: wrong.every(([, w]) => typeof w === 'number' || typeof w === 'boolean'),
    };
  }
  return { ok: true, context: value as EvaluationContext };
}

/** Numbers and booleans quoted as text (what an SDK does with them); the text re-indented. */
export function quoteValues(text: string): string {
  const value = JSON.parse(text) as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = typeof v === 'number' || typeof v === 'boolean' ? String(v) : v;
  return JSON.stringify(out, null, 2);
}

function textOf(v: unknown): string {
  return typeof v === 'number' || typeof v === 'boolean' ? String(v) : '…';
}
