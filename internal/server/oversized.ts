import type { IncomingMessage } from 'node:http';
import { constants, type ServerHttp2Stream } from 'node:http2';
import type { Socket } from 'node:net';

/**
 * Closing a connection whose request body was refused for its size (413), in stages: the
 * answer (with `Connection: close`), then the rest of the upload read and thrown away, up to a
 * bound in bytes and in time, then the socket closed.
 *
 * Why: Node closes a `Connection: close` socket as soon as the answer is written. The client
 * is usually still sending its body then; data arriving at a closed socket makes the kernel
 * answer with a reset, and a client busy writing sees EPIPE or ECONNRESET instead of the 413
 * it was sent (Go's net/http keeps reading for the same reason). The bound keeps a client
 * from holding the connection with an endless upload.
 */

/** Bytes of an oversized upload read after the 413 before the connection is cut: twice the limit and 4 MiB. */
export function drainBound(bodyLimit: number): number {
  return 2 * bodyLimit + 4 * 1024 * 1024;
}

/** How long the rest of an oversized upload is waited for. */
export const DRAIN_MS = 5000;

const DRAINING = Symbol('pennon.draining');
type Draining = Socket & { [DRAINING]?: true };

/** Whether a `Connection` header may be written (HTTP/2 forbids it: its connections carry many streams). */
export function connectionHeaderAllowed(req: IncomingMessage | undefined): boolean {
  return req?.httpVersionMajor !== 2;
}

/**
 * Call when refusing a request for its body size, before the answer is written (the answer
 * must say `Connection: close`; over HTTP/2 the stream is cancelled once answered instead). Reads and discards the rest of the body; the socket is closed
 * once both the answer is written and the upload has ended, or at once when the upload passes
 * drainBound(bodyLimit) bytes or DRAIN_MS.
 */
export function drainThenClose(req: IncomingMessage, bodyLimit: number): void {
  // HTTP/2: the connection carries other streams; this stream alone ends once answered.
  const stream = (req as IncomingMessage & { stream?: ServerHttp2Stream }).stream;
  if (req.httpVersionMajor === 2 && stream) {
    // Once the answer is written, the rest of the upload is refused (RST_STREAM CANCEL).
    stream.once('finish', () => {
      if (!stream.destroyed) stream.close(constants.NGHTTP2_CANCEL);
    });
    req.resume();
    return;
  }
  const socket = req.socket as Draining | null;
  if (!socket || socket.destroyed || socket[DRAINING]) return;
  socket[DRAINING] = true;
  const closeWhenWritten = socket.destroySoon.bind(socket);
  let answered = false;
  let uploaded = req.complete;
  const cut = () => socket.destroy();
  const timer = setTimeout(cut, DRAIN_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  // Node calls destroySoon() once a `Connection: close` answer is written. Only the sending
  // side is ended here (the client sees the end of the answer); reading goes on.
  socket.destroySoon = () => {
    answered = true;
    if (uploaded) closeWhenWritten();
    else socket.end();
  };
  const bound = drainBound(bodyLimit);
  let read = 0;
  req.on('data', (chunk: Buffer) => {
    read += chunk.length;
    if (read > bound) cut();
  });
  req.once('end', () => {
    uploaded = true;
    if (answered) closeWhenWritten();
  });
  // Whatever was reading the body (a body parser, a decompression stream) has given up on it.
  req.unpipe();
  req.resume();
}
