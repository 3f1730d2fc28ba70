import type { ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LiveHub, LiveSource, LiveSubscriber } from '../live';

/**
 * A live stream over HTTP (Server-Sent Events, or Flipt v2's newline-delimited JSON frames): the
 * response taken from Fastify and held open, written by the stream's own `LiveSubscriber`.
 * What a client does not read stays bounded: past `maxBufferedBytes` queued, the client counts
 * as stalled and its connection is dropped (it reconnects and re-fetches); the others never wait
 * on it. The socket's idle timeout is lifted — heartbeats keep proxies' — and the subscription
 * ends with the connection, whoever closes it.
 */

export interface HttpStream {
  /** Queues text for the client; false once the stream has ended or was dropped. */
  write(text: string): boolean;
  /** Ends the response after `last` (the service is stopping, or the stream's job is done). */
  end(last?: string): void;
  readonly open: boolean;
}

export interface HttpStreamOptions {
  contentType: string;
  maxBufferedBytes: number;
  /** Extra response headers. */
  headers?: Record<string, string>;
}

/** Sends the stream's headers and returns its writer; the caller subscribes and writes. */
export function openHttpStream(request: FastifyRequest, reply: FastifyReply, options: HttpStreamOptions): HttpStream {
  reply.hijack();
  const res: ServerResponse = reply.raw;
  request.raw.socket?.setTimeout(0);
  res.writeHead(200, {
    'content-type': options.contentType,
    'cache-control': 'no-cache, no-transform',
    // nginx buffers proxied responses unless told not to.
    'x-accel-buffering': 'no',
    'x-request-id': request.id,
    ...options.headers,
  });
  res.flushHeaders();
  let open = true;
  const closed = () => {
    open = false;
  };
  res.once('close', closed);
  return {
    get open() {
      return open && !res.destroyed;
    },
    write(text) {
      if (!open || res.destroyed) return false;
      res.write(text);
      if (res.writableLength > options.maxBufferedBytes) {
        // A client this far behind is stalled: drop it rather than hold its backlog.
        open = false;
        res.destroy();
        return false;
      }
      return true;
    },
    end(last) {
      if (!open) return;
      open = false;
      if (last !== undefined) res.end(last);
      else res.end();
    },
  };
}

/**
 * Subscribes `subscriber` to the hub for as long as the HTTP stream stays open. A refusal (the
 * limit, shutting down) is thrown before anything is written, so Fastify answers it (503).
 */
export function followWhileOpen(hub: LiveHub, source: LiveSource, ns: string, reply: FastifyReply, subscriber: LiveSubscriber): () => void {
  const unsubscribe = hub.subscribe(source, ns, subscriber);
  // The response's close, not the request's (which closes once its body has been read).
  reply.raw.once('close', unsubscribe);
  return unsubscribe;
}
