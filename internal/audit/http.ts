import { Agent, request } from 'undici';
import type { EgressPolicy } from './egress';

/**
 * One POST of an audit delivery: through an undici Agent whose connections resolve their host
 * with the egress policy's lookup (so the address connected to is the address checked), never
 * following a redirect (a 3xx is a failure: the receiver moved, and following it would let a
 * receiver send us anywhere), bounded by `timeout` from the first byte to the answer's status,
 * and reading at most a few KiB of the answer's body (for the error message) before discarding it.
 */

/** Of an answer's body, what is read (for a failure's message); the rest is discarded. */
const BODY_READ_BYTES = 4096;
/** How much of a failing answer's body a failure's message quotes. */
const BODY_QUOTED_CHARS = 200;

export class DeliveryFailed extends Error {}

export interface Poster {
  post(url: string, body: string, headers: Record<string, string>, signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}

export function httpPoster(policy: EgressPolicy, timeoutMs: number): Poster {
  const agent = new Agent({
    connect: { lookup: policy.lookup, timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    // Receivers' keep-alive is often 5 s: a connection reused just as the receiver closes it fails.
    keepAliveTimeout: 4000,
    connections: 4,
  });
  return {
    async post(url, body, headers, closing) {
      const target = new URL(url);
      const literal = policy.checkLiteral(target);
      if (literal) throw literal;
      const signal = AbortSignal.any([closing, AbortSignal.timeout(timeoutMs)]);
      let res: Awaited<ReturnType<typeof request>>;
      try {
        res = await request(target, { dispatcher: agent, method: 'POST', headers, body, signal });
      } catch (err) {
        throw signal.aborted && !closing.aborted ? new DeliveryFailed(`no answer within ${timeoutMs} ms (audit.sinks.webhook.timeout)`) : err;
      }
      const text = await readSome(res.body);
      const status = res.statusCode;
      if (status >= 200 && status < 300) return;
      if (status >= 300 && status < 400) {
        throw new DeliveryFailed(`answered ${status}${res.headers.location ? ` (to ${String(res.headers.location)})` : ''}: redirects are not followed; configure the URL it points to`);
      }
      const quoted = text.trim().slice(0, BODY_QUOTED_CHARS);
      throw new DeliveryFailed(`answered ${status}${quoted ? `: ${quoted}` : ''}`);
    },
    close: () => agent.close(),
  };
}

/** The first few KiB of a body as text; the rest is dropped without being read into memory. */
async function readSome(body: AsyncIterable<Buffer> & { destroy(): unknown }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= BODY_READ_BYTES) break;
    }
  } catch {
    // An answer whose body breaks off still has its status.
  } finally {
    body.destroy();
  }
  return Buffer.concat(chunks).subarray(0, BODY_READ_BYTES).toString('utf8');
}
