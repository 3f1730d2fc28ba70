import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createSecureServer, type ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';

/**
 * HTTPS for `server.protocol: https`: HTTP/2 and HTTP/1.1 over TLS on one port, chosen by ALPN,
 * as Flipt's Go server negotiates them. node:http2's server lacks http.Server's
 * `closeIdleConnections` and `closeAllConnections`, which the drain (drain.ts) and Fastify's
 * close call: they are given to it here, from the connections it tracks — HTTP/2 sessions by
 * their open streams (an idle one is closed with a GOAWAY), HTTP/1.1 sockets by their requests
 * in flight.
 */

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export function secureServer(tls: { cert: Buffer; key: Buffer }, Response: typeof ServerResponse, handler: Handler): Server {
  const server = createSecureServer({ allowHTTP1: true, cert: tls.cert, key: tls.key, Http1ServerResponse: Response }, handler as never);
  const streams = new Map<ServerHttp2Session, number>();
  const requests = new Map<Socket, number>();
  server.on('session', (session) => {
    streams.set(session, 0);
    session.once('close', () => streams.delete(session));
  });
  server.on('stream', (stream) => {
    const session = stream.session as ServerHttp2Session;
    streams.set(session, (streams.get(session) ?? 0) + 1);
    stream.once('close', () => {
      const open = streams.get(session);
      if (open !== undefined) streams.set(session, open - 1);
    });
  });
  server.on('secureConnection', (socket: TLSSocket) => {
    if (socket.alpnProtocol === 'h2') return;
    requests.set(socket, 0);
    socket.once('close', () => requests.delete(socket));
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.httpVersionMajor !== 1) return;
    const socket = req.socket;
    requests.set(socket, (requests.get(socket) ?? 0) + 1);
    res.once('close', () => {
      const inFlight = requests.get(socket);
      if (inFlight !== undefined) requests.set(socket, inFlight - 1);
    });
  });
  const controlled = server as unknown as Server;
  controlled.closeIdleConnections = () => {
    for (const [session, open] of streams) if (open <= 0 && !session.closed) session.close();
    for (const [socket, inFlight] of requests) if (inFlight <= 0) socket.destroy();
  };
  controlled.closeAllConnections = () => {
    for (const session of streams.keys()) session.destroy();
    for (const socket of requests.keys()) socket.destroy();
  };
  return controlled;
}
