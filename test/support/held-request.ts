import { connect, type Socket } from 'node:net';

export interface HeldRequest {
  socket: Socket;
  /** Sends more bytes: the rest of the body, or a request pipelined behind it. */
  send(text: string): void;
  /** What the server wrote so far, without its `100 Continue`. */
  received(): string;
  /** Resolves with everything received (without the `100 Continue`) when the server closes the connection. */
  closed: Promise<string>;
  /** The socket error that ended the connection (ECONNRESET: reset rather than closed), if any. */
  error(): NodeJS.ErrnoException | null;
}

const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';

/**
 * A request held in flight on a raw connection: its head (request line and headers, to which
 * `Expect: 100-continue` is added) and the start of its body are sent, and the promise resolves
 * once the server has read the head and dispatched the request — Node's HTTP server writes
 * `100 Continue` just before it does — so a test knows the request is in flight without sleeping.
 */
export async function holdRequest(port: number, head: string, bodyStart: string): Promise<HeldRequest> {
  const socket = connect(port, '127.0.0.1');
  let error: NodeJS.ErrnoException | null = null;
  socket.on('error', (err) => (error = err));
  let text = '';
  let onData = () => undefined as void;
  socket.on('data', (chunk) => {
    text += chunk.toString('utf8');
    onData();
  });
  const closed = new Promise<string>((resolve) => socket.on('close', () => resolve(strip(text))));
  await new Promise((resolve) => socket.once('connect', resolve));
  const dispatched = new Promise<void>((resolve, reject) => {
    onData = () => {
      if (text.startsWith(CONTINUE)) resolve();
      else if (!CONTINUE.startsWith(text)) reject(new Error(`the server answered before reading the body: ${text}`));
    };
    void closed.then(() => reject(new Error(`the connection closed before the request was dispatched: ${text}`)));
  });
  socket.write(`${head}\r\nExpect: 100-continue\r\n\r\n${bodyStart}`);
  await dispatched;
  return { socket, send: (more) => void socket.write(more), received: () => strip(text), closed, error: () => error };
}

function strip(text: string): string {
  return text.startsWith(CONTINUE) ? text.slice(CONTINUE.length) : text;
}
