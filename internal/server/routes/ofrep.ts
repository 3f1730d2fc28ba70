import { createHash } from 'node:crypto';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { invalid } from '../../core';
import type { CompiledFlag } from '../../evaluation';
import { bridgeInput, bulkFlags, ofrepFlag, ofrepNamespace, type BridgeInput, type BridgeOutput, type OfrepBulkJson, type OfrepConfigurationJson, type OfrepFlagJson } from '../../wire';
import { closeAfterOversized, failureKind, ofrepError, retryAfterOf } from '../errors';
import type { RequestErrorLog } from '../error-log';
import { booleanOf, variantOf } from '../observed-evaluation';
import { operation, serve, type CallRequest } from '../route-table';
import type { FlagSources } from '../sources';
import { eventStreamsFor, ofrepEventRoutes, settleToHeard, type OfrepStreamDeps } from './ofrep-events';

/** One flag's evaluation in Flipt's OFREP bridge form. */
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

/**
 * OFREP (OpenFeature Remote Evaluation Protocol) as Flipt v1 serves it, with its own error
 * body. Beyond Flipt v1: the bulk answer carries an ETag and honours If-None-Match with a 304,
 * and names its event stream (`eventStreams`, ofrep-events.ts), as Flipt v2 does.
 */
export function ofrepRoutes(
  app: FastifyInstance,
  sources: FlagSources,
  config: { cacheEnabled: boolean; cacheTtlMs: number },
  errors: RequestErrorLog,
  live: OfrepStreamDeps,
): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const key = (error as { ofrepKey?: string }).ofrepKey ?? (request.params as { key?: string } | undefined)?.key;
    const { status, body } = ofrepError(error, key);
    if (status === 413) closeAfterOversized(request, reply);
    const retryAfter = retryAfterOf(error);
    if (retryAfter !== undefined) reply.header('retry-after', String(retryAfter));
    if (status >= 500) errors.error(`ofrep|${failureKind(error)}`, { err: error, reqId: request.id }, 'ofrep evaluation failed');
    return reply.status(status).header('x-request-id', request.id).type('application/json').send(body);
  });

  operation(app, 'OfrepConfiguration', async (): Promise<OfrepConfigurationJson> => ({
    name: 'flipt',
    capabilities: {
      cacheInvalidation: { polling: { enabled: config.cacheEnabled, minPollingIntervalMs: config.cacheEnabled ? config.cacheTtlMs : 0 } },
      flagEvaluation: { supportedTypes: ['string', 'boolean'] },
    },
  }));

  operation(app, 'OfrepEvaluateFlag', async (request): Promise<OfrepFlagJson> => {
    const key = request.params.key ?? '';
    if (key === '') throw invalid('flag key was not provided');
    const input = bridgeInput(request.headers, request.body);
    return ofrepFlag(key, bridge(await sources.of(request.headers).snapshots.flag(input.namespaceKey, key), input));
  });

  serve(app, 'OfrepEvaluateBulk', async (request, reply) => {
    const source = sources.of(request.headers);
    const ns = ofrepNamespace(request.headers);
    await settleToHeard(source, ns, request.query);
    const answer = await ofrepBulk(sources, request);
    const body = JSON.stringify(answer);
    // The answer's version: its flags, not the stream's URL beside them.
    const etag = `"${createHash('sha1').update(body).digest('hex')}"`;
    reply.header('etag', etag);
    if (request.headers['if-none-match'] === etag) return reply.status(304).send();
    const streams = JSON.stringify(eventStreamsFor(source, ns, request.auth, live));
    return reply.type('application/json').send(`${body.slice(0, -1)},"eventStreams":${streams}}`);
  });

  ofrepEventRoutes(app, sources, live);
}

/** Every flag of the namespace (or those the context names) evaluated: the bulk answer, whichever transport asks. */
export async function ofrepBulk(sources: FlagSources, request: Pick<CallRequest, 'headers' | 'body'>): Promise<OfrepBulkJson> {
  const input = bridgeInput(request.headers, request.body);
  const snapshots = sources.of(request.headers).snapshots;
  const snapshot = await snapshots.get(input.namespaceKey);
  const flags: CompiledFlag[] = [];
  for (const key of bulkFlags(input.context, snapshot.ordered)) {
    // The first failure aborts the whole bulk request, naming its flag.
    try {
      flags.push(await snapshots.flag(input.namespaceKey, key));
    } catch (err) {
      throw Object.assign(err as Error, { ofrepKey: key });
    }
  }
  return { flags: flags.map((f) => ofrepFlag(f.key, bridge(f, input))) };
}
