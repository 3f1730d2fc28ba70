import { connect } from 'node:net';
import { parseResponse, type RawResponse } from './raw-http';

/**
 * A client that uploads a body over a raw socket and keeps sending whatever the server
 * answers meanwhile — as many HTTP clients do — then reports what it read: the case where a
 * server that closes early leaves the client with EPIPE or ECONNRESET instead of its answer.
 */
export interface UploadOptions {
  /** Bytes of body to send (at most; sending stops when the connection does). */
  total: number;
  /** Content-Length to declare; omitted with `chunked`. Default: `total`. */
  declared?: number;
  chunked?: boolean;
  headers?: Record<string, string>;
  /** Stop sending after this many bytes and hold the connection open until `release` settles. */
  stallAfter?: number;
  release?: Promise<unknown>;
}

export interface UploadResult {
  /** The answer, when a complete head arrived. */
  response: RawResponse | null;
  /** The socket error, if the connection failed (EPIPE, ECONNRESET). */
  error: string | null;
  /** Body bytes handed to the socket before it ended. */
  written: number;
  /** Milliseconds from the first byte of the answer to the connection's end. */
  closedAfterAnswerMs: number | null;
}

const PIECE = Buffer.alloc(64 * 1024, 'x');

export function upload(url: string, path: string, options: UploadOptions): Promise<UploadResult> {
  const { hostname, port } = new URL(url);
  const framing = options.chunked ? 'Transfer-Encoding: chunked' : `Content-Length: ${options.declared ?? options.total}`;
  const headers = { 'content-type': 'application/json', ...options.headers };
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  const head = `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${extra.join('')}${framing}\r\n\r\n`;
  return new Promise((resolve) => {
    // Half-open allowed: the server's end of the answer does not stop this client sending.
    const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
    const received: Buffer[] = [];
    let written = 0;
    let error: string | null = null;
    let answeredAt: number | null = null;
    let closed = false;
    let serverEnded = false;
    let sent = false;
    const finish = () => {
      if (sent && serverEnded) socket.end();
    };
    socket.on('data', (chunk: Buffer) => {
      answeredAt ??= performance.now();
      received.push(chunk);
    });
    socket.on('end', () => {
      serverEnded = true;
      finish();
    });
    socket.on('error', (err: NodeJS.ErrnoException) => (error ??= err.code ?? err.message));
    socket.on('close', () => {
      closed = true;
      let response: RawResponse | null = null;
      try {
        response = parseResponse(Buffer.concat(received));
      } catch {
        response = null;
      }
      resolve({ response, error, written, closedAfterAnswerMs: answeredAt === null ? null : performance.now() - answeredAt });
    });
    const limit = Math.min(options.total, options.stallAfter ?? Infinity);
    const send = () => {
      while (!closed && written < limit) {
        const size = Math.min(PIECE.length, limit - written);
        const piece = size === PIECE.length ? PIECE : PIECE.subarray(0, size);
        written += size;
        const more = options.chunked ? socket.write(`${size.toString(16)}\r\n`) && socket.write(piece) && socket.write('\r\n') : socket.write(piece);
        if (!more) return void socket.once('drain', send);
      }
      if (closed) return;
      if (written < options.total) return void options.release?.then(() => socket.destroy());
      if (options.chunked) socket.write('0\r\n\r\n');
      sent = true;
      finish();
    };
    socket.write(head, send);
  });
}
