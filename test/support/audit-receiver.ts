import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { until } from './wait';

/**
 * A receiver of audit deliveries on 127.0.0.1: a real HTTP server that keeps every request
 * (path, headers, raw body, parsed JSON) and, given the signing secret, checks each one's
 * `X-Flipt-Webhook-Signature` against the HMAC-SHA256 of the bytes it received. What it answers
 * can be switched (`answer`) to play a receiver that fails or redirects.
 */

export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  /** The signature header matched the body (null: no secret to check against). */
  signed: boolean | null;
}

export type Answer = (res: ServerResponse, request: Received) => void;

export const ok: Answer = (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');

export class AuditReceiver {
  readonly received: Received[] = [];
  answer: Answer = ok;
  private server: Server;
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly secret: string | null,
    readonly port: number,
    server: Server,
  ) {
    this.server = server;
  }

  /** A receiver on a free port (or `port`), checking signatures with `secret` when given. */
  static async start(secret: string | null = null, port = 0): Promise<AuditReceiver> {
    let receiver: AuditReceiver | undefined;
    const server = await listen((req, res) => receiver!.handle(req, res), port, (socket) => receiver?.track(socket));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('the receiver has no port');
    receiver = new AuditReceiver(secret, address.port, server);
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  /** The deliveries to `path`, in the order they arrived. */
  at(path = '/hook'): Received[] {
    return this.received.filter((r) => r.path === path);
  }

  /** Waits until `count` deliveries have reached `path`. */
  async waitFor(count: number, path = '/hook', withinMs = 10_000): Promise<Received[]> {
    await until(() => this.at(path).length >= count, `${count} deliveries reached ${path} (got ${this.at(path).length})`, withinMs);
    return this.at(path);
  }

  /** Stops listening (new connections refused) and drops open ones. */
  async down(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Listens again on the same port. */
  async up(): Promise<void> {
    this.server = await listen((req, res) => this.handle(req, res), this.port, (socket) => this.track(socket));
  }

  close(): Promise<void> {
    return this.down();
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  private handle(req: import('node:http').IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let json: unknown = undefined;
      try {
        json = JSON.parse(raw.toString('utf8'));
      } catch {
        json = undefined;
      }
      const received: Received = { path: req.url ?? '', headers: req.headers, body: raw.toString('utf8'), json, signed: this.signed(raw, req.headers['x-flipt-webhook-signature']) };
      this.received.push(received);
      this.answer(res, received);
    });
  }

  private signed(raw: Buffer, header: string | string[] | undefined): boolean | null {
    if (this.secret === null) return null;
    if (typeof header !== 'string') return false;
    const expected = createHmac('sha256', this.secret).update(raw).digest();
    const given = Buffer.from(header, 'hex');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}

function listen(handler: Parameters<typeof createServer>[1], port: number, onSocket: (socket: Socket) => void): Promise<Server> {
  const server = createServer(handler!);
  server.on('connection', onSocket);
  return new Promise((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', () => resolve(server)));
}
