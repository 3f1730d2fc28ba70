import { invalid } from '../core/errors';
import { DEFAULT_NAMESPACE } from '../core/types';
import type { Context, EvaluationReason } from '../evaluation/types';
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

export interface OfrepFlagJson {
  key: string;
  reason: string;
  variant: string;
  metadata: Record<string, string>;
  value: string | boolean;
}

export interface OfrepBulkJson {
  flags: OfrepFlagJson[];
  /** ADR-0008: where the provider hears that it should fetch again (HTTP only). */
  eventStreams?: OfrepEventStreamJson[];
}

/** One entry of `eventStreams`: an SSE endpoint on this server (the provider adds the origin). */
export interface OfrepEventStreamJson {
  type: 'sse';
  endpoint: { requestUri: string };
  inactivityDelaySec: number;
}

/** An event stream's message: fetch the bulk answer again (`etag`: the configuration's version). */
export interface OfrepRefetchJson {
  type: 'refetchEvaluation';
  etag: string;
  /** Milliseconds since the epoch. */
  lastModified: number;
}

/** OFREP's error body (not grpc-gateway's): `key` names the flag where there is one. */
export interface OfrepErrorJson {
  key?: string;
  errorCode: 'FLAG_NOT_FOUND' | 'INVALID_CONTEXT' | 'GENERAL';
  errorDetails: string;
}

export interface OfrepConfigurationJson {
  name: string;
  capabilities: {
    cacheInvalidation: { polling: { enabled: boolean; minPollingIntervalMs: number } };
    flagEvaluation: { supportedTypes: string[] };
  };
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
  return {
    namespaceKey: ofrepNamespace(headers),
    entityId: context.targetingKey ?? crypto.randomUUID(),
    context,
  };
}

/** The namespace an OFREP request names (X-Flipt-Namespace, `default` without it). */
export function ofrepNamespace(headers: Record<string, string | string[] | undefined>): string {
  const header = headers['x-flipt-namespace'];
  return (Array.isArray(header) ? header[0] : header) || DEFAULT_NAMESPACE;
}

export function ofrepFlag(key: string, out: BridgeOutput): OfrepFlagJson {
  return { key, reason: OFREP_REASON[out.reason] ?? 'UNKNOWN', variant: out.variant, metadata: out.metadata ?? {}, value: out.value };
}

/** Bulk without `context.flags`: every boolean flag and every enabled variant flag, in creation order. */
export function bulkFlags<T extends { key: string; type: string; enabled: boolean }>(context: Context, all: T[]): string[] {
  if (context.flags !== undefined) return context.flags.split(',').map((k) => k.trim());
  return all.filter((f) => f.type === 'BOOLEAN_FLAG_TYPE' || f.enabled).map((f) => f.key);
}
