import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Authenticator } from '../../auth';
import type { StreamsConfig } from '../../config';
import { DEFAULT_NAMESPACE } from '../../core';
import type { LiveHub, LiveSubscriber } from '../../live';
import { changedFlags, type SnapshotUpdate } from '../../snapshots';
import { CHANGE_EVENT, Fields, MAX_LISTED_FLAGS, READY_EVENT, SSE_HEARTBEAT, sseFrame, type NamespaceChangeJson, type NamespaceReadyJson } from '../../wire';
import { followWhileOpen, openHttpStream, type HttpStream } from '../live-http';
import { serve } from '../route-table';
import type { FlagSource, FlagSources } from '../sources';

/**
 * Pennon's namespace event stream, `GET /api/v1/namespaces/{ns}/events` (wire/events.ts says
 * what it sends): Server-Sent Events over the LiveHub — a `ready` frame with the revision held,
 * then a `change` frame per new revision with the flags it touched, `: ping` heartbeats, and the
 * end of the stream at shutdown. The management surface: the bearer token in the Authorization
 * header (the dashboard reads it with fetch, which can send one), a namespace-scoped token on its
 * own namespace only. A refusal (streams.max, shutting down, an unknown environment) is an
 * ordinary error answer, before any byte of the stream. With Git environments the stream follows
 * the environment X-Flipt-Environment names, or `?environment=` (for a client that cannot send
 * headers), the default one without either. The token is checked again at each heartbeat: a
 * token deleted or expired meanwhile ends the stream (the client's reconnection then gets 401).
 */

export interface NamespaceEventDeps {
  sources: FlagSources;
  live: LiveHub;
  streams: StreamsConfig;
  authenticator: Pick<Authenticator, 'authenticate'>;
}

const CONTENT_TYPE = 'text/event-stream; charset=utf-8';

/** A HEAD's subscription: held only long enough to be refused as a GET would be. */
const IDLE: LiveSubscriber = { update: () => undefined, heartbeat: () => undefined, end: () => undefined };

export function namespaceEventRoutes(app: FastifyInstance, deps: NamespaceEventDeps): void {
  const streamOptions = { contentType: CONTENT_TYPE, maxBufferedBytes: deps.streams.max_buffered_bytes };

  serve(app, 'NamespaceEvents', async (request, reply) => {
    const ns = (request.params as { namespaceKey?: string }).namespaceKey || DEFAULT_NAMESPACE;
    const source = sourceOf(deps.sources, request);
    if (request.method === 'HEAD') {
      // GET's status and headers, without holding a stream.
      deps.live.subscribe(source, ns, IDLE)();
      openHttpStream(request, reply, streamOptions).end();
      return;
    }
    await follow(request, reply, source, ns);
  });

  async function follow(request: FastifyRequest, reply: FastifyReply, source: FlagSource, ns: string): Promise<void> {
    // Frames that come before `ready` wait for it, so that a client always reads `ready` first.
    let stream: HttpStream | null = null;
    let queued: string[] | null = [];
    const send = (frame: string) => (queued ? queued.push(frame) : stream?.write(frame));
    const subscriber: LiveSubscriber = {
      update: (update) => send(changeFrame(update)),
      heartbeat: () => {
        if (!queued) stream?.write(SSE_HEARTBEAT);
        // Authenticated when it opened (the gate): still?
        if (request.auth) deps.authenticator.authenticate(request.credential).catch(() => stream?.end());
      },
      // The service is stopping: the client reconnects (elsewhere, or here once restarted).
      end: () => stream?.end(),
    };
    // Subscribed before anything is written: the limit or a shutdown is a 503 answer.
    followWhileOpen(deps.live, source, ns, reply, subscriber);
    stream = openHttpStream(request, reply, streamOptions);
    let revision = '';
    try {
      revision = (await source.snapshots.get(ns)).revision;
    } catch {
      // Nothing held (the database is down since start): the next change says where it is.
    }
    const ready: NamespaceReadyJson = { namespace: ns, revision, heartbeatMs: deps.streams.heartbeat_interval };
    stream.write(sseFrame(READY_EVENT, ready));
    const waiting = queued;
    queued = null;
    for (const frame of waiting) stream.write(frame);
  }
}

/** Each update's frame, written once however many dashboards follow the namespace. */
const frames = new WeakMap<SnapshotUpdate, string>();

function changeFrame(update: SnapshotUpdate): string {
  let frame = frames.get(update);
  if (frame === undefined) {
    const flags = changedFlags(update);
    const change: NamespaceChangeJson = { namespace: update.namespace, revision: update.snapshot.revision, flags: flags.length > MAX_LISTED_FLAGS ? null : flags };
    frames.set(update, (frame = sseFrame(CHANGE_EVENT, change)));
  }
  return frame;
}

/** The environment the stream follows: X-Flipt-Environment, else `?environment=` (EventSource sends no headers). */
function sourceOf(sources: FlagSources, request: FastifyRequest): FlagSource {
  const header = request.headers['x-flipt-environment'];
  const named = (Array.isArray(header) ? header[0] : header) || Fields.query(request.query).str('environment');
  return sources.of(named ? { 'x-flipt-environment': named } : {});
}
