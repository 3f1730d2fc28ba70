import { connect, type Socket } from 'node:net';
import { gunzipSync, inflateSync } from 'node:zlib';

/**
 * One HTTP/1.1 exchange over a raw socket, read until the server closes it: what a HEAD
 * answer really carries on the wire (fetch and node:http never read a HEAD body, so they
 * cannot show one that was sent by mistake). An event stream (a GET answered
 * `text/event-stream`, which stays open) is read up to its head and what came with it, then
 * hung up: so a test that walks every route reads the stream routes too.
 */
export interface RawResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  /** Every byte after the blank line that ends the headers (chunk framing included). */
  body: Buffer;
}

export function rawRequest(url: string, method: string, path: string, headers: Record<string, string> = {}, body?: string | Uint8Array): Promise<RawResponse> {
  const { hostname, port } = new URL(url);
  const lines = [`${method} ${path} HTTP/1.1`, `Host: ${hostname}:${port}`, 'Connection: close', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`)];
  if (body !== undefined) lines.push(`Content-Length: ${Buffer.byteLength(body)}`);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (method === 'HEAD' || !isEventStreamHead(Buffer.concat(chunks))) return;
      socket.destroy();
      resolve(parseResponse(Buffer.concat(chunks)));
    });
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (err) {
        reject(err as Error);
      }
    });
    socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    if (body !== undefined) socket.write(body);
  });
}

/** A complete response head that announces an event stream. */
function isEventStreamHead(bytes: Buffer): boolean {
  const end = bytes.indexOf('\r\n\r\n');
  return end >= 0 && /^content-type:\s*text\/event-stream/im.test(bytes.subarray(0, end).toString('latin1'));
}

export function parseResponse(bytes: Buffer): RawResponse {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) throw new Error(`no complete response head in ${JSON.stringify(bytes.toString('latin1').slice(0, 200))}`);
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  return { status: Number(statusLine.split(' ')[1]), headers, body: bytes.subarray(end + 4) };
}

/** The body as the application sent it: chunk framing removed, gzip or deflate undone. */
export function decodedBody(res: RawResponse): Buffer {
  let body = res.body;
  if (/chunked/i.test(res.headers['transfer-encoding'] ?? '')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = body.indexOf('\r\n', at);
      const size = parseInt(body.subarray(at, lineEnd).toString('latin1'), 16);
      if (!(size > 0)) break;
      parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  const encoding = res.headers['content-encoding'];
  if (encoding === 'gzip') return gunzipSync(body);
  if (encoding === 'deflate') return inflateSync(body);
  return body;
}

/**
 * A keep-alive connection driven by hand: requests written as text, responses read one at a
 * time (framed by Content-Length), and how the connection ended — closed by the server after a
 * complete answer, or reset. What a client pool sees when a server shuts down under it.
 */
export class KeepAliveConnection {
  private buffer = Buffer.alloc(0);
  private waiting: (() => void) | null = null;
  /** The socket error that ended the connection (ECONNRESET…), if one did. */
  error: NodeJS.ErrnoException | null = null;
  /** Resolves when the connection is closed, by either side. */
  readonly closed: Promise<void>;
  private ended = false;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffer = Buffer.concat([this.buffer, chunk]);
      this.waiting?.();
    });
    socket.on('error', (err) => (this.error = err));
    this.closed = new Promise((resolve) =>
      socket.on('close', () => {
        this.ended = true;
        this.waiting?.();
        resolve();
      }),
    );
  }

  static async open(port: number): Promise<KeepAliveConnection> {
    const socket = connect(port, '127.0.0.1');
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return new KeepAliveConnection(socket);
  }

  /** Writes a request (`GET /x`, headers and body as given; Host and Content-Length added). */
  send(method: string, path: string, body?: string): void {
    const lines = [`${method} ${path} HTTP/1.1`, 'Host: pennon'];
    if (body !== undefined) lines.push('Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`);
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n${body ?? ''}`);
  }

  /** The next complete response; rejects if the connection ends first (saying how). */
  async next(): Promise<RawResponse & { text: string }> {
    for (;;) {
      const end = this.buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = parseResponse(this.buffer.subarray(0, end + 4));
        const length = Number(head.headers['content-length'] ?? 0);
        if (this.buffer.length >= end + 4 + length) {
          const body = this.buffer.subarray(end + 4, end + 4 + length);
          this.buffer = this.buffer.subarray(end + 4 + length);
          return { ...head, body, text: body.toString('utf8') };
        }
      }
      if (this.ended) throw new Error(`the connection ended before a complete response (${this.error?.code ?? 'closed by the server'}); received: ${JSON.stringify(this.buffer.toString('latin1'))}`);
      await new Promise<void>((resolve) => (this.waiting = resolve));
      this.waiting = null;
    }
  }

  /** Sends a request and reads its response. */
  async request(method: string, path: string, body?: string): Promise<RawResponse & { text: string }> {
    this.send(method, path, body);
    return this.next();
  }

  destroy(): void {
    this.socket.destroy();
  }
}
