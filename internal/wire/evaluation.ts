import { invalidField } from '../core/errors';
import type { BooleanResult, Context, VariantResult } from '../evaluation/types';
import type { BooleanEvaluationJson, LegacyEvaluationJson, TimestampJson, TimingJson, VariantEvaluationJson } from './types';

/**
 * Evaluation requests and responses on the wire. Decoding here is hand-written rather than
 * going through `Fields`: it runs on every evaluation, the hot path.
 */

/** A decoded evaluation request: every field present ('' for those left out). */
export interface EvaluationRequest {
  requestId: string;
  namespaceKey: string;
  flagKey: string;
  entityId: string;
  context: Context;
  reference: string;
}

type Json = Record<string, unknown>;

function str(body: Json, camel: string, snake: string): string {
  let v = body[camel];
  if (camel !== snake && Object.hasOwn(body, snake)) {
    // Both spellings of one field: protojson refuses it, and so do we (it would be ambiguous).
    if (Object.hasOwn(body, camel)) throw invalidField(camel, `given twice (${camel} and ${snake})`);
    v = body[snake];
  }
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw invalidField(camel, 'must be a string');
  return v;
}

/**
 * The context: a map of strings. Numbers and booleans are accepted and written as text (the
 * Flipt SDK passes them through as JSON types); null reads as a missing key. With `lenient`
 * (OFREP, whose clients send arbitrary JSON), objects and lists are written as JSON text.
 */
export function decodeContext(value: unknown, lenient = false): Context {
  if (value === undefined || value === null) return Object.create(null);
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidField('context', 'must be a JSON object of strings');
  // The common case, all strings: use the parsed object as it is (evaluation ignores non-string members).
  let allStrings = true;
  for (const key in value) {
    if (typeof (value as Json)[key] !== 'string') {
      allStrings = false;
      break;
    }
  }
  if (allStrings) return value as Context;
  const context: Context = Object.create(null);
  for (const key of Object.keys(value)) {
    const v = (value as Json)[key];
    if (typeof v === 'string') context[key] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') context[key] = String(v);
    else if (v === null) continue;
    else if (lenient) context[key] = JSON.stringify(v);
    else throw invalidField(`context.${key}`, 'must be a string');
  }
  return context;
}

/** A request body as an object; absent is empty, anything but an object is a 400. */
export function bodyObject(body: unknown): Json {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidField('body', 'must be a JSON object');
  return body as Json;
}

export function decodeEvaluationRequest(raw: unknown): EvaluationRequest {
  const body = bodyObject(raw);
  return {
    requestId: str(body, 'requestId', 'request_id'),
    namespaceKey: str(body, 'namespaceKey', 'namespace_key'),
    flagKey: str(body, 'flagKey', 'flag_key'),
    entityId: str(body, 'entityId', 'entity_id'),
    context: decodeContext(body.context),
    reference: str(body, 'reference', 'reference'),
  };
}

/** A batch: its own request id ('' when not a string), its requests, and the legacy batch's `excludeNotFound`. */
export interface BatchRequest {
  requestId: string;
  requests: EvaluationRequest[];
  excludeNotFound: boolean;
}

export function decodeBatchRequest(raw: unknown): BatchRequest {
  const body = bodyObject(raw);
  const list = body.requests;
  if (list !== undefined && list !== null && !Array.isArray(list)) throw invalidField('requests', 'must be a list of evaluation requests');
  return {
    requestId: typeof body.requestId === 'string' ? body.requestId : typeof body.request_id === 'string' ? body.request_id : '',
    requests: Array.isArray(list) ? list.map(decodeEvaluationRequest) : [],
    excludeNotFound: body.excludeNotFound === true || body.exclude_not_found === true,
  };
}

let lastMillis = 0;
let lastStamp = '';

/** RFC 3339 "now"; formatted once per millisecond (toISOString costs ~1 µs on the hot path). */
export function now(): TimestampJson {
  const millis = Date.now();
  if (millis !== lastMillis) {
    lastMillis = millis;
    lastStamp = new Date(millis).toISOString();
  }
  return lastStamp;
}

/** The timing fields of an answer to a request that started at `startedAt` (performance.now()). */
export function timing(requestId: string, startedAt: number): TimingJson {
  return { requestId, requestDurationMillis: performance.now() - startedAt, timestamp: now() };
}

export function variantEvaluationToJson(flagKey: string, r: VariantResult, t: TimingJson): VariantEvaluationJson {
  return {
    match: r.match,
    segmentKeys: r.segmentKeys,
    reason: r.reason,
    variantKey: r.variantKey,
    variantAttachment: r.variantAttachment,
    requestId: t.requestId,
    requestDurationMillis: t.requestDurationMillis,
    timestamp: t.timestamp,
    flagKey,
  };
}

export function booleanEvaluationToJson(flagKey: string, r: BooleanResult, t: TimingJson): BooleanEvaluationJson {
  return {
    enabled: r.enabled,
    reason: r.reason,
    requestId: t.requestId,
    requestDurationMillis: t.requestDurationMillis,
    timestamp: t.timestamp,
    flagKey,
    segmentKeys: r.segmentKeys,
  };
}

/** The legacy `/api/v1/evaluate` answer for one request in namespace `ns`. */
export function legacyEvaluationToJson(
  ns: string,
  req: EvaluationRequest,
  r: VariantResult,
  meta: { requestId: string; timestamp: TimestampJson; duration: number },
): LegacyEvaluationJson {
  return {
    requestId: meta.requestId,
    entityId: req.entityId,
    requestContext: req.context,
    match: r.match,
    flagKey: req.flagKey,
    segmentKey: r.segmentKeys[0] ?? '',
    timestamp: meta.timestamp,
    value: r.variantKey,
    requestDurationMillis: meta.duration,
    attachment: r.variantAttachment,
    reason: r.reason,
    namespaceKey: ns,
    segmentKeys: r.segmentKeys,
  };
}

const timingProperties = {
  requestId: { type: 'string' },
  requestDurationMillis: { type: 'number' },
  timestamp: { type: 'string' },
} as const;

/** Response schemas: the server compiles them into fast serializers (and they stop field leaks). */
export const variantEvaluationSchema = {
  type: 'object',
  properties: {
    match: { type: 'boolean' },
    segmentKeys: { type: 'array', items: { type: 'string' } },
    reason: { type: 'string' },
    variantKey: { type: 'string' },
    variantAttachment: { type: 'string' },
    ...timingProperties,
    flagKey: { type: 'string' },
  },
} as const;

export const booleanEvaluationSchema = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean' },
    reason: { type: 'string' },
    ...timingProperties,
    flagKey: { type: 'string' },
    segmentKeys: { type: 'array', items: { type: 'string' } },
  },
} as const;
