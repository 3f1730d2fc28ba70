import type { EvaluationRequest } from '../../api/evaluation';

/**
 * The console's request as commands to run elsewhere: `curl` against `/evaluate/v1` (what an
 * SDK sends) and `pennon evaluate` (cmd/evaluate.ts: the same explanation in a terminal). The
 * server's address is the page's own (the dashboard may sit behind a path prefix). When the
 * instance requires authentication, the token is a shell variable the reader sets: the
 * dashboard never prints the token it holds.
 */

export const TOKEN_VARIABLE = 'PENNON_TOKEN';

/** Where the dashboard's API lives: the page's address without file, query or hash. */
export function serverAddress(): string {
  return new URL('.', document.baseURI).href.replace(/\/$/, '');
}

/** A word for a POSIX shell: bare when it is plainly safe, else single-quoted. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The body the console sends (and curl would). */
export function requestBody(request: EvaluationRequest): string {
  return JSON.stringify({ namespaceKey: request.namespaceKey, flagKey: request.flagKey, entityId: request.entityId, context: request.context });
}

export function curlCommand(request: EvaluationRequest, kind: 'variant' | 'boolean', address: string, authRequired: boolean): string {
  const lines = [`curl -sS -X POST ${shellWord(`${address}/evaluate/v1/${kind}`)}`, `-H 'Content-Type: application/json'`];
  if (authRequired) lines.push(`-H "Authorization: Bearer $${TOKEN_VARIABLE}"`);
  lines.push(`-d ${shellWord(requestBody(request))}`);
  return lines.join(' \\\n  ');
}

export function pennonCommand(request: EvaluationRequest, address: string, authRequired: boolean): string {
  const words = ['pennon evaluate', shellWord(request.flagKey), '--namespace', shellWord(request.namespaceKey), '--entity-id', shellWord(request.entityId)];
  for (const [key, value] of Object.entries(request.context)) words.push('--context', shellWord(`${key}=${value}`));
  words.push('--address', shellWord(address));
  if (authRequired) words.push('--token', `"$${TOKEN_VARIABLE}"`);
  return words.join(' ');
}
