import { randomUUID } from 'node:crypto';
import type { FastifyError } from 'fastify';
import { DEFAULT_NAMESPACE, invalid, isPennonError, type PennonError } from '../../core';
import type { CompiledFlag, Context, EvaluationReason } from '../../evaluation';
import { booleanOf, variantOf } from '../observed-evaluation';
import { decodeContext } from './evaluation';

/**
 * OFREP on the wire, as Flipt v1 does it: the request's namespace, entity and context (the
 * "bridge input"), one flag's evaluation in Flipt's bridge form, the OFREP answer, and
 * OFREP's own error body.
 */

export interface BridgeInput {
  namespaceKey: string;
  entityId: string;
  context: Context;
}

export interface BridgeOutput {
  flagKey: string;
  reason: EvaluationReason | string;
  variant: string;
  value: string | boolean;
  metadata: Record<string, string> | null;
}

export interface OfrepFlag {
  key: string;
  reason: string;
  variant: string;
  metadata: Record<string, string>;
  value: string | boolean;
}

const OFREP_REASON: Record<string, string> = {
  MATCH_EVALUATION_REASON: 'TARGETING_MATCH',
  DEFAULT_EVALUATION_REASON: 'DEFAULT',
  FLAG_DISABLED_EVALUATION_REASON: 'DISABLED',
};

/** Namespace from X-Flipt-Namespace; entity from context.targetingKey, else a random id (as Flipt). */
export function bridgeInput(headers: Record<string, string | string[] | undefined>, body: unknown): BridgeInput {
  if (body !== undefined && body !== null && (typeof body !== 'object' || Array.isArray(body))) {
    throw invalid('request body must be a JSON object');
  }
  const context = decodeContext((body as { context?: unknown } | null | undefined)?.context, true);
  const header = headers['x-flipt-namespace'];
  return {
    namespaceKey: (Array.isArray(header) ? header[0] : header) || DEFAULT_NAMESPACE,
    entityId: context.targetingKey ?? randomUUID(),
    context,
  };
}

export function bridge(flag: CompiledFlag, input: BridgeInput): BridgeOutput {
  if (flag.type === 'BOOLEAN_FLAG_TYPE') {
    const r = booleanOf(input.namespaceKey, flag, input.entityId, input.context);
    return { flagKey: flag.key, reason: r.reason, variant: String(r.enabled), value: r.enabled, metadata: {} };
  }
  const r = variantOf(input.namespaceKey, flag, input.entityId, input.context);
  const metadata: Record<string, string> = {};
  if (r.segmentKeys.length > 0) metadata.segments = r.segmentKeys.join(',');
  if (r.variantAttachment !== '') metadata.attachment = r.variantAttachment;
  return { flagKey: flag.key, reason: r.reason, variant: r.variantKey, value: r.variantKey, metadata };
}

export function ofrepFlag(key: string, out: BridgeOutput): OfrepFlag {
  return { key, reason: OFREP_REASON[out.reason] ?? 'UNKNOWN', variant: out.variant, metadata: out.metadata ?? {}, value: out.value };
}

/** Bulk without `context.flags`: every boolean flag and every enabled variant flag, in creation order. */
export function bulkFlags<T extends { key: string; type: string; enabled: boolean }>(context: Context, all: T[]): string[] {
  if (context.flags !== undefined) return context.flags.split(',').map((k) => k.trim());
  return all.filter((f) => f.type === 'BOOLEAN_FLAG_TYPE' || f.enabled).map((f) => f.key);
}

const STATUS: Partial<Record<PennonError['kind'], number>> = { unauthenticated: 401, forbidden: 403, unavailable: 503, too_large: 413 };

/**
 * Flipt's OFREP error mapping. The body ends with a newline, as Go's JSON encoder writes it.
 * Unlike Flipt, an internal error's text is not passed to the client.
 */
export function ofrepError(err: PennonError | FastifyError | Error, key: string | undefined): { status: number; body: string } {
  let status = 500;
  let errorCode = 'GENERAL';
  let details = 'internal error';
  let withKey: string | undefined;
  if (isPennonError(err)) {
    details = err.message;
    if (err.kind === 'not_found') {
      [status, errorCode, details, withKey] = [404, 'FLAG_NOT_FOUND', `flag was not found ${key ?? ''}`, key];
    } else if (err.kind === 'invalid') {
      [status, errorCode, withKey] = [400, 'INVALID_CONTEXT', key];
    } else {
      status = STATUS[err.kind] ?? 500;
      if (status === 500) details = 'internal error';
    }
  } else if (typeof (err as FastifyError).statusCode === 'number' && (err as FastifyError).statusCode! < 500) {
    status = (err as FastifyError).statusCode!;
    errorCode = status === 400 ? 'INVALID_CONTEXT' : 'GENERAL';
    details = err.message;
  }
  const body = withKey !== undefined && withKey !== '' ? { key: withKey, errorCode, errorDetails: details } : { errorCode, errorDetails: details };
  return { status, body: `${JSON.stringify(body)}\n` };
}
