import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import type { Logger } from 'pino';

/**
 * Shutting the HTTP server down without resetting a request. Node's `server.close()` destroys
 * every connection it deems idle at once — including keep-alive connections whose client has
 * just sent the next request (still unread in the socket's buffer, or on its way): those
 * clients see a reset, and a write among them is neither answered nor applied. And answers
 * written while draining said `Connection: keep-alive`, inviting a next request on a connection
 * about to be closed. So, while draining:
 *
 * - every answer says `Connection: close` — the last one on its connection, when requests are
 *   pipelined behind it (those are answered too, in order: the health lane's 503);
 * - the listener closes (new connections are refused) but open connections stay open for
 *   `KEEP_ALIVE_GRACE_MS` after the last answer that said keep-alive, so a request already on
 *   its way is read and answered (503) instead of reset; then idle connections are closed;
 * - requests in flight finish, up to `server.shutdown_timeout`; whatever is still open then is
 *   cut, and reported (`serve` exits non-zero).
 *
 * What it costs a request outside the drain: one flag test and one clock read in `writeHead`.
 */

/** How long a keep-alive client may take to send its next request after an answer and still be answered. */
export const KEEP_ALIVE_GRACE_MS = 250;
/** How often connections that turned idle while draining are closed. */
const REAP_INTERVAL_MS = 50;

/** On a response dispatched while draining: its rank among the drain's requests on its connection. */
const RANK = Symbol('pennon.drainRank');
/** On a socket: how many requests were dispatched on it while draining. */
const DISPATCHED = Symbol('pennon.drainDispatched');
const DRAIN = Symbol('pennon.drain');

type Ranked = ServerResponse & { [RANK]?: number };
type Counted = { [DISPATCHED]?: number };

export interface DrainReport {
  /** Connections closed at `shutdown_timeout` with a request still in flight (0: none cut). */
  cut: number;
}

/** One HTTP server's drain: the response class the server is built with, and the drain itself. */
export class Drain {
  private draining = false;
  private lastKeepAlive = Number.NEGATIVE_INFINITY;
  readonly Response: typeof ServerResponse;

  constructor() {
    const drain = this;
    const writeHead = ServerResponse.prototype.writeHead;
    class DrainAwareResponse extends ServerResponse {}
    // Every answer passes here (`end()` without headers calls it too): the one place to decide
    // the Connection header.
    DrainAwareResponse.prototype.writeHead = function (this: Ranked, ...args: unknown[]) {
      if (!drain.draining) drain.lastKeepAlive = performance.now();
      else if (isLastOnConnection(this)) this.shouldKeepAlive = false;
      return (writeHead as (...a: unknown[]) => ServerResponse).apply(this, args);
    } as ServerResponse['writeHead'];
    this.Response = DrainAwareResponse as typeof ServerResponse;
  }

  /** The server's handler, numbering the requests dispatched on each connection while draining. */
  handler(inner: (req: IncomingMessage, res: ServerResponse) => void): (req: IncomingMessage, res: ServerResponse) => void {
    return (req, res) => {
      if (this.draining) {
        const socket = req.socket as typeof req.socket & Counted;
        const rank = (socket[DISPATCHED] ?? 0) + 1;
        socket[DISPATCHED] = rank;
        (res as Ranked)[RANK] = rank;
        // Answered once the parser has read the rest of what arrived with it: a request
        // pipelined behind this one gets its rank first, so this answer does not close the
        // connection under it.
        setImmediate(inner, req, res);
        return;
      }
      inner(req, res);
    };
  }

  /** Ties the drain to the server it was built into (`drainServer` finds it there). */
  attach(server: Server): Server {
    (server as Server & { [DRAIN]?: Drain })[DRAIN] = this;
    return server;
  }

  async run(server: Server, timeoutMs: number, logger: Logger): Promise<DrainReport> {
    this.draining = true;
    const started = performance.now();
    const deadline = started + timeoutMs;
    let allClosed = false;
    // Stops accepting without `http.Server.close()`'s immediate destruction of idle connections;
    // the callback runs once every connection has closed.
    const closed = new Promise<void>((resolve) =>
      NetServer.prototype.close.call(server, () => {
        allClosed = true;
        resolve();
      }),
    );
    const graceEnds = Math.min(this.lastKeepAlive + KEEP_ALIVE_GRACE_MS, deadline);
    if (graceEnds > performance.now()) await Promise.race([closed, pause(graceEnds - performance.now())]);
    // Reaped in the check phase of the next loop iteration, so that a full poll phase runs
    // first: a client that read its last keep-alive answer in this iteration (one in this
    // process, when it is starved of CPU; or any whose bytes are already in the socket) has its
    // next request read — and its connection marked busy — before the idle ones are closed.
    const reap = () => setImmediate(() => setImmediate(() => server.closeIdleConnections()));
    reap();
    const reaper = setInterval(reap, REAP_INTERVAL_MS);
    try {
      if (!allClosed) await Promise.race([closed, pause(deadline - performance.now())]);
    } finally {
      clearInterval(reaper);
    }
    if (allClosed) return { cut: 0 };
    server.closeIdleConnections();
    const cut = await new Promise<number>((resolve) => server.getConnections((err, count) => resolve(err ? 0 : count)));
    server.closeAllConnections();
    await closed;
    if (cut > 0) logger.error({ cut, shutdownTimeoutMs: timeoutMs }, `server.shutdown_timeout (${timeoutMs} ms) reached: cut ${cut} connection(s) with a request still in flight`);
    return { cut };
  }
}

/** A response is the last on its connection unless requests were dispatched behind it while draining. */
function isLastOnConnection(res: Ranked): boolean {
  const socket = res.req?.socket as (IncomingMessage['socket'] & Counted) | undefined;
  return (socket?.[DISPATCHED] ?? 0) === (res[RANK] ?? 0);
}

/**
 * Drains a server built by `buildApp`: Connection: close on every answer, the listener closed,
 * idle connections closed once no request can be on its way, in-flight requests given until
 * `timeoutMs`. Resolves when every connection is closed.
 */
export function drainServer(server: Server, timeoutMs: number, logger: Logger): Promise<DrainReport> {
  const drain = (server as Server & { [DRAIN]?: Drain })[DRAIN];
  if (!drain) throw new Error('this HTTP server was not built with a drain (buildApp)');
  return drain.run(server, timeoutMs, logger);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, Math.max(0, ms)));
}
