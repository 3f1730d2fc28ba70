import { decodedBody, rawRequest, type RawResponse } from '../../../support/raw-http';
import type { FuzzCase } from './fuzz-case';

/**
 * What must hold for any response to a generated request: never a 5xx; an error is Flipt's
 * body `{code, message, details}` (OFREP's `{errorCode, errorDetails}` on OFREP routes; on a
 * server stream's route, grpc-gateway's error line `{"error": {code, message, details}}`) with
 * no stack or storage internals; a request the body parser must refuse is refused; a bad paging
 * value on a list route is a 400 naming the parameter; HEAD is GET without the body.
 */

/** Headers that differ between any two responses, or only describe the framing of a body. */
const PER_RESPONSE = new Set(['date', 'x-request-id', 'transfer-encoding']);
/** /metrics counts the requests made to compare it: its length moves between any two scrapes. */
const comparableHeaders = (r: RawResponse, volatile: boolean) =>
  Object.fromEntries(
    Object.entries(r.headers)
      .filter(([name]) => !PER_RESPONSE.has(name))
      .map(([name, value]) => [name, volatile && name === 'content-length' ? 'present' : value]),
  );

/** Flipt's gateway answers 501 `Method Not Allowed` for a method the path does not serve. */
const isOtherMethod = (c: FuzzCase) => c.method !== c.route.method && !(c.method === 'HEAD' && c.route.method === 'GET');
/** `?pretty` (or Accept: application/json+pretty) drops zero values, an error's empty `details` among them. */
const wantsPretty = (c: FuzzCase) => /[?&]pretty(=|&|$)/.test(c.path) || (c.headers.accept ?? '').includes('application/json+pretty');

/** A bad paging value sent to a list route's real collection, which must answer 400 naming it (Flipt's token list has no offset). */
function pagingChecked(c: FuzzCase, lists: ReadonlySet<string>): boolean {
  if (!c.badPaging || !c.seeded || !lists.has(c.route.url) || (c.method !== 'GET' && c.method !== 'HEAD')) return false;
  return !(c.badPaging === 'offset' && c.route.spec.paging?.offset === false);
}

export function responseProblems(c: FuzzCase, res: RawResponse, lists: ReadonlySet<string>): string[] {
  const problems: string[] = [];
  if (res.status >= 500 && !(res.status === 501 && isOtherMethod(c))) problems.push(`status ${res.status}`);
  if (c.body?.refused && (res.status < 400 || res.status >= 500)) problems.push(`a body the parser must refuse (${c.body.kind}) was answered ${res.status}`);
  if (pagingChecked(c, lists) && res.status !== 400) problems.push(`bad ${c.badPaging} on a list route answered ${res.status}`);
  if (res.status < 400 || c.method === 'HEAD') return problems;
  if (c.routed && (res.status === 501 || (res.status === 404 && decodedBody(res).toString('utf8').includes('"Not Found"')))) {
    problems.push(`the router did not find ${c.route.method} ${c.route.url}`);
  }

  let body: unknown;
  const text = decodedBody(res).toString('utf8');
  try {
    body = JSON.parse(text);
  } catch {
    return [...problems, `error body is not JSON: ${JSON.stringify(text.slice(0, 120))}`];
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return [...problems, 'error body is not an object'];
  let b = body as Record<string, unknown>;
  // A server stream (Flipt v2's snapshot stream) refuses with grpc-gateway's error line: Flipt's body inside `{"error": …}`.
  const streamed = c.route.spec.name === 'ClientSnapshotNamespaceStream' && JSON.stringify(Object.keys(b)) === '["error"]';
  if (streamed) {
    if (typeof b.error !== 'object' || b.error === null) return [...problems, 'a stream\'s error line holds no error'];
    b = b.error as Record<string, unknown>;
  }
  // OFREP's handlers answer in OFREP's shape; the router (an unknown path, another method) in Flipt's.
  const keys = JSON.stringify(Object.keys(b));
  const ofrep = c.path.startsWith('/ofrep/') && keys !== '["code","message","details"]';
  if (ofrep) {
    if (!['["errorCode","errorDetails"]', '["key","errorCode","errorDetails"]'].includes(keys)) problems.push(`OFREP error body keys ${keys}`);
  } else {
    const pretty = wantsPretty(c) && keys === '["code","message"]';
    if (keys !== '["code","message","details"]' && !pretty) problems.push(`error body keys ${keys}`);
    if (!Number.isInteger(b.code)) problems.push('code is not an integer');
    if (!pretty && !Array.isArray(b.details)) problems.push('details is not an array');
    if (res.status === 501 && (b.code !== 12 || b.message !== 'Method Not Allowed')) problems.push(`501 is ${JSON.stringify(b)}`);
  }
  const message = ofrep ? b.errorDetails : b.message;
  if (typeof message !== 'string') problems.push('message is not a string');
  else {
    if (/\n\s+at /.test(message)) problems.push('message holds a stack trace');
    if (/SQLITE_[A-Z]|\bER_[A-Z_]+\b|no such (table|column)|syntax error at|datatype mismatch|[Kk]ysely|relation "[^"]*" does not exist|Maximum call stack/.test(message)) {
      problems.push(`message leaks internals: ${message}`);
    }
    if (pagingChecked(c, lists) && c.method === 'GET' && res.status === 400 && !message.includes(c.badPaging!)) {
      problems.push(`bad ${c.badPaging} refused without naming it: ${message}`);
    }
  }
  return problems;
}

/** HEAD must answer what a GET of the same request answers, without a body. */
export async function headProblems(url: string, c: FuzzCase, head: RawResponse): Promise<string[]> {
  const problems: string[] = [];
  if (head.body.length !== 0) problems.push(`HEAD sent ${head.body.length} body bytes`);
  const get = await rawRequest(url, 'GET', c.path, c.headers, c.body?.bytes);
  if (get.status !== head.status) problems.push(`HEAD ${head.status}, GET ${get.status}`);
  const volatile = c.route.url === '/metrics';
  const [have, want] = [comparableHeaders(head, volatile), comparableHeaders(get, volatile)];
  if (JSON.stringify(have) !== JSON.stringify(want)) problems.push(`HEAD headers ${JSON.stringify(have)} but GET ${JSON.stringify(want)}`);
  return problems;
}
