import { randomUUID } from 'node:crypto';
import { invalidField } from '../../core';
import type { BooleanResult, Context, VariantResult } from '../../evaluation';

/**
 * Evaluation requests and responses on the wire. Decoding here is hand-written rather than
 * going through `Fields`: it runs on every evaluation, the hot path.
 */

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

export function asObject(body: unknown): Json {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body)) throw invalidField('body', 'must be a JSON object');
  return body as Json;
}

export function decodeEvaluationRequest(raw: unknown): EvaluationRequest {
  const body = asObject(raw);
  return {
    requestId: str(body, 'requestId', 'request_id'),
    namespaceKey: str(body, 'namespaceKey', 'namespace_key'),
    flagKey: str(body, 'flagKey', 'flag_key'),
    entityId: str(body, 'entityId', 'entity_id'),
    context: decodeContext(body.context),
    reference: str(body, 'reference', 'reference'),
  };
}

/** A list field of requests (batch bodies). */
export function decodeRequests(body: Json): EvaluationRequest[] {
  const list = body.requests;
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw invalidField('requests', 'must be a list of evaluation requests');
  return list.map(decodeEvaluationRequest);
}

export function requestIdOf(given: string): string {
  return given !== '' ? given : randomUUID();
}

/** Fields every /evaluate/v1 response carries. */
export interface Timing {
  requestId: string;
  requestDurationMillis: number;
  timestamp: string;
}

let lastMillis = 0;
let lastStamp = '';

/** RFC 3339 "now"; formatted once per millisecond (toISOString costs ~1 µs on the hot path). */
export function now(): string {
  const millis = Date.now();
  if (millis !== lastMillis) {
    lastMillis = millis;
    lastStamp = new Date(millis).toISOString();
  }
  return lastStamp;
}

export function timing(requestId: string, startedAt: number): Timing {
  return { requestId, requestDurationMillis: performance.now() - startedAt, timestamp: now() };
}

export function variantResponse(flagKey: string, r: VariantResult, t: Timing) {
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

export function booleanResponse(flagKey: string, r: BooleanResult, t: Timing) {
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

const timingProperties = {
  requestId: { type: 'string' },
  requestDurationMillis: { type: 'number' },
  timestamp: { type: 'string' },
} as const;

/** Response schemas: Fastify compiles them into fast serializers (and they stop field leaks). */
export const variantResponseSchema = {
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

export const booleanResponseSchema = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean' },
    reason: { type: 'string' },
    ...timingProperties,
    flagKey: { type: 'string' },
    segmentKeys: { type: 'array', items: { type: 'string' } },
  },
} as const;
