import { request, type IncomingHttpHeaders } from 'node:http';

/**
 * A newline-delimited JSON stream read as a client-side SDK reads Flipt v2's snapshot stream:
 * a plain GET held open, each line parsed as it arrives. Waits are on the lines themselves
 * (bounded, never a fixed sleep); `close()` hangs up as a client that goes away.
 */
export interface LineStream {
  status: number;
  headers: IncomingHttpHeaders;
  /** The next line, parsed; fails if none arrives within `withinMs` (or the stream ends first). */
  next<T = any>(withinMs?: number): Promise<T>;
  /** Lines received and not taken yet. */
  readonly queued: number;
  /** Every line received so far, taken or not. */
  readonly received: number;
  /** Resolves when the server ends the response whole; rejects if the connection breaks instead. */
  readonly ended: Promise<void>;
  /** Stops reading from the socket (a stalled client); nothing is taken from the kernel after this. */
  pause(): void;
  close(): void;
}

export function openLineStream(url: string, headers: Record<string, string> = {}): Promise<LineStream> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers, agent: false }, (res) => {
      const lines: string[] = [];
      const waiters: Array<() => void> = [];
      // The line being received, in pieces (joined once whole: a frame may be megabytes).
      let partial: string[] = [];
      let received = 0;
      let finished = false;
      const wake = () => {
        for (const w of waiters.splice(0)) w();
      };
      res.setEncoding('utf8');
      res.on('data', (text: string) => {
        const parts = text.split('\n');
        const rest = parts.pop() as string;
        for (const part of parts) {
          lines.push(partial.join('') + part);
          partial = [];
          received++;
        }
        if (rest !== '') partial.push(rest);
        wake();
      });
      const ended = new Promise<void>((done, fail) => {
        res.on('end', () => {
          finished = true;
          wake();
          if (partial.length > 0) fail(new Error(`the stream ended inside a line: ${partial.join('').slice(0, 80)}`));
          else done();
        });
        res.on('error', (err) => {
          finished = true;
          wake();
          fail(err);
        });
        res.on('aborted', () => {
          finished = true;
          wake();
          fail(new Error('the server cut the stream'));
        });
      });
      ended.catch(() => undefined);
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        get queued() {
          return lines.length;
        },
        get received() {
          return received;
        },
        ended,
        async next(withinMs = 10_000) {
          const deadline = performance.now() + withinMs;
          while (lines.length === 0) {
            if (finished) throw new Error('the stream ended before another line');
            const left = deadline - performance.now();
            if (left <= 0) throw new Error(`no line within ${withinMs} ms`);
            await new Promise<void>((woken) => {
              const timer = setTimeout(woken, left);
              waiters.push(() => {
                clearTimeout(timer);
                woken();
              });
            });
          }
          return JSON.parse(lines.shift() as string);
        },
        pause: () => res.socket.pause(),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
