import type { FastifyInstance, FastifyRequest } from 'fastify';
import { DEFAULT_NAMESPACE, invalid, type Authentication } from '../../core';
import type { Authenticator } from '../../auth';
import type { StreamsConfig } from '../../config';
import type { CompiledNamespace } from '../../evaluation';
import type { LiveHub } from '../../live';
import { SSE_HEARTBEAT, sseFrame, type OfrepEventStreamJson, type OfrepRefetchJson } from '../../wire';
import type { AuthGate } from '../auth-gate';
import { followWhileOpen, openHttpStream, type HttpStream } from '../live-http';
import { serve } from '../route-table';
import { DEFAULT_ENVIRONMENT, type FlagSource, type FlagSources } from '../sources';

/**
 * OFREP's event streams (ADR-0008, "SSE for bulk evaluation changes"), at Flipt v2's path
 * `/ofrep/v1/_stream/{environment}/{namespace}/events`: the bulk answer names the stream
 * (`eventStreams`), the provider connects with EventSource, and each new revision of the
 * namespace sends `{"type":"refetchEvaluation","etag":<revision>,"lastModified":<ms>}` — also
 * once on connect, so a change between the bulk fetch and the connection is not missed. The
 * provider then fetches bulk again with `flagConfigEtag`, which `settleToHeard` honours: an
 * instance that has not yet heard of that revision looks before answering.
 */

export interface OfrepStreamDeps {
  live: LiveHub;
  streams: StreamsConfig;
  /** Null when authentication is not required. */
  gate: AuthGate | null;
  authenticator: Pick<Authenticator, 'authenticateTicket' | 'ticketFor'>;
}

const PATH = (environment: string, ns: string) => `/ofrep/v1/_stream/${encodeURIComponent(environment)}/${encodeURIComponent(ns)}/events`;

/** The bulk answer's `eventStreams`: this server's stream of the namespace, with a ticket when tokens are required. */
export function eventStreamsFor(source: FlagSource, ns: string, auth: Authentication | null, deps: OfrepStreamDeps): OfrepEventStreamJson[] {
  const ticket = auth ? `?ticket=${encodeURIComponent(deps.authenticator.ticketFor(auth, ns))}` : '';
  return [{ type: 'sse', endpoint: { requestUri: `${PATH(source.name || DEFAULT_ENVIRONMENT, ns)}${ticket}` }, inactivityDelaySec: Math.round(deps.streams.inactivity_delay / 1000) }];
}

/** `flagConfigEtag` / `flagConfigLastModified`: a refetch after an event waits for what the event announced. */
export async function settleToHeard(source: FlagSource, ns: string, query: unknown): Promise<void> {
  const { flagConfigEtag: etag, flagConfigLastModified: modified } = (query ?? {}) as Record<string, unknown>;
  if (etag !== undefined && (typeof etag !== 'string' || etag.length > 512)) throw invalid('flagConfigEtag must be one string of at most 512 characters');
  let heardAt: number | null = null;
  if (modified !== undefined) {
    heardAt = typeof modified === 'string' ? (/^\d{1,16}$/.test(modified) ? Number(modified) : Date.parse(modified)) : NaN;
    if (!Number.isFinite(heardAt)) throw invalid('flagConfigLastModified must be milliseconds since the epoch or an RFC 3339 time');
  }
  if (etag !== undefined && etag !== '') {
    await source.snapshots.settle(ns, etag);
  } else if (heardAt !== null && heardAt > source.snapshots.modifiedAt(ns)) {
    // No version to compare: a change newer than what is held was announced somewhere.
    await source.snapshots.settle(ns, '');
  }
}

function refetch(snapshot: CompiledNamespace, at: number): string {
  const message: OfrepRefetchJson = { type: 'refetchEvaluation', etag: snapshot.revision, lastModified: at };
  return sseFrame(null, message);
}

export function ofrepEventRoutes(app: FastifyInstance, sources: FlagSources, deps: OfrepStreamDeps): void {
  serve<{ Params: { environmentKey: string; namespaceKey: string }; Querystring: { ticket?: unknown } }>(app, 'OfrepEventStream', async (request, reply) => {
    const { environmentKey, namespaceKey: ns } = request.params;
    // Who asks comes first (401, 403), then whether what it names exists (404).
    await authorize(request, ns, deps);
    const source = sources.environment(environmentKey);
    // Loaded before any byte is sent, so an unreadable namespace is still an error answer.
    const held = await source.snapshots.get(ns);
    if (request.method === 'HEAD') return reply.type('text/event-stream').send();
    let sent: string | null = null;
    const send = (snapshot: CompiledNamespace, at: number) => {
      if (snapshot.revision === sent) return;
      sent = snapshot.revision;
      stream.write(refetch(snapshot, at));
    };
    // Subscribed before the stream opens: a refusal (streams.max, stopping) is still a 503.
    followWhileOpen(deps.live, source, ns, reply, {
      update: (update) => send(update.snapshot, update.at),
      heartbeat: () => stream.write(SSE_HEARTBEAT),
      end: () => stream.end(),
    });
    const stream: HttpStream = openHttpStream(request, reply, { contentType: 'text/event-stream', maxBufferedBytes: deps.streams.max_buffered_bytes });
    // The delay EventSource waits before reconnecting after a drop.
    stream.write('retry: 1000\n\n');
    // The version held now (a change between the provider's bulk fetch and this connection is not lost).
    const current = await Promise.resolve(source.snapshots.get(ns)).catch(() => held);
    send(current, source.snapshots.modifiedAt(ns));
    return reply;
  });
}

/** A ticket from the bulk answer, or the Authorization header (clients that can send one). */
async function authorize(request: FastifyRequest<{ Querystring: { ticket?: unknown } }>, ns: string, deps: OfrepStreamDeps): Promise<void> {
  if (!deps.gate?.guards('ofrep')) return;
  const ticket = request.query.ticket;
  const auth = typeof ticket === 'string' && ticket !== '' ? await deps.authenticator.authenticateTicket(ticket, ns) : await deps.gate.check(request.headers.authorization, 'ofrep', request.ip);
  // Its surface is public (so the gate's hooks leave it to this route): its role is checked here.
  request.auth = auth;
  request.grants = deps.gate.authorizeRoute(auth, 'OfrepEventStream', [ns || DEFAULT_NAMESPACE], request);
}
