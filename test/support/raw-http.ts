import { connect } from 'node:net';
import { gunzipSync, inflateSync } from 'node:zlib';

/**
 * One HTTP/1.1 exchange over a raw socket, read until the server closes it: what a HEAD
 * answer really carries on the wire (fetch and node:http never read a HEAD body, so they
 * cannot show one that was sent by mistake).
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
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
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
